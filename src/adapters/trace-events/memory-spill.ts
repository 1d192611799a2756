/**
 * A SpillSpace in memory: what adapters use when the caller gives them no scratch files
 * (callers without a spill space, tests). The spool's logic is the same; only where the
 * spilled bytes live differs.
 */
import type { SpillFile, SpillSpace } from "../adapter.ts";

export class MemorySpillSpace implements SpillSpace {
  create(): SpillFile {
    return new MemorySpillFile();
  }
}

class MemorySpillFile implements SpillFile {
  private data = new Uint8Array(1 << 12);
  size = 0;

  append(bytes: Uint8Array): void {
    if (this.size + bytes.length > this.data.length) {
      let capacity = this.data.length * 2;
      while (capacity < this.size + bytes.length) capacity *= 2;
      const next = new Uint8Array(capacity);
      next.set(this.data.subarray(0, this.size));
      this.data = next;
    }
    this.data.set(bytes, this.size);
    this.size += bytes.length;
  }

  overwrite(bytes: Uint8Array, position: number): void {
    if (position < 0 || position + bytes.length > this.size)
      throw new RangeError("spill overwrite past the end of the file");
    this.data.set(bytes, position);
  }

  read(target: Uint8Array, position: number): number {
    const n = Math.max(0, Math.min(target.length, this.size - position));
    target.set(this.data.subarray(position, position + n));
    return n;
  }

  dispose(): void {
    this.data = new Uint8Array(0);
    this.size = 0;
  }
}
