/**
 * Scratch space in memory that counts what adapters spill and what they leave undeleted,
 * so a test can show that spilling happened and that every scratch file was released.
 */
import type { SpillFile, SpillSpace } from "../../src/adapters/adapter.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";

export class CountingSpillSpace implements SpillSpace {
  private readonly inner = new MemorySpillSpace();
  appends = 0;
  open = 0;

  create(): SpillFile {
    const file = this.inner.create();
    this.open++;
    return {
      append: (bytes) => {
        this.appends++;
        file.append(bytes);
      },
      overwrite: (bytes, position) => file.overwrite(bytes, position),
      read: (target, position) => file.read(target, position),
      get size() {
        return file.size;
      },
      dispose: () => {
        this.open--;
        file.dispose();
      },
    };
  }
}
