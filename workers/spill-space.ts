/**
 * Scratch files for a parse worker's adapters, in the worker's output directory (the
 * operation's staging area, removed with it whatever happens). Each file is created
 * exclusively, written and read synchronously, and deleted when disposed; `disposeAll`
 * removes what an adapter left behind when it failed.
 */
import { rm } from "node:fs/promises";
import {
  closeSync,
  constants,
  fdatasyncSync,
  openSync,
  readSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { SpillFile, SpillSpace } from "../src/adapters/adapter.ts";

export class FileSpillSpace implements SpillSpace {
  private next = 0;
  private readonly open = new Set<FileSpill>();
  /** Deletions under way, with `removeLater` (see `removed`). */
  private readonly removals: Promise<void>[] = [];

  /**
   * `onWrite` hears of every byte written (the worker paces its collections by it); `prefix`
   * names the files (spaces of different threads in one directory need their own).
   * `removeLater`: disposed files are deleted on the runtime's I/O threads, not the caller's,
   * and `removed()` says when they are gone. Unlinking a trace's spilled runs (hundreds of MB) was
   * ~160 ms of a 100 MB real Perfetto import's parser thread.
   */
  constructor(
    private readonly dir: string,
    private readonly onWrite: (bytes: number) => void = () => {},
    private readonly prefix = "spill-",
    private readonly removeLater = false,
  ) {}

  private readonly remove = (path: string): void => {
    if (!this.removeLater) {
      rmSync(path, { force: true });
      return;
    }
    // Caught here, so that a deletion failing before `removed()` is asked is not an unhandled
    // rejection (which ends the worker); `removed()` reports it.
    this.removals.push(
      rm(path, { force: true }).catch((error: unknown) => {
        this.removalFailure ??= error;
      }),
    );
  };
  private removalFailure: unknown = null;

  /** Settles once every disposed file is deleted; rejects if a deletion failed. */
  async removed(): Promise<void> {
    await Promise.all(this.removals.splice(0));
    if (this.removalFailure !== null) throw this.removalFailure;
  }

  create(): SpillFile {
    const path = join(this.dir, `${this.prefix}${this.next++}.tmp`);
    const file: FileSpill = new FileSpill(
      path,
      true,
      () => this.open.delete(file),
      this.onWrite,
      this.remove,
    );
    this.open.add(file);
    return file;
  }

  /**
   * Gives a file of this space up without deleting it, for another thread's space to `adopt`:
   * closed here, it is no longer this space's to dispose.
   */
  release(file: SpillFile): { path: string; size: number } {
    if (!(file instanceof FileSpill) || !this.open.has(file))
      throw new Error("spill space: released a file it does not hold");
    file.close();
    this.open.delete(file);
    return { path: file.path, size: file.size };
  }

  /** Takes a file another thread's space released; disposed with this space's own. */
  adopt(released: { path: string; size: number }): SpillFile {
    const file: FileSpill = new FileSpill(
      released.path,
      false,
      () => this.open.delete(file),
      this.onWrite,
      this.remove,
    );
    file.size = released.size;
    this.open.add(file);
    return file;
  }

  disposeAll(): void {
    for (const file of [...this.open]) file.dispose();
  }
}

const SYNC_EVERY_BYTES = 16 << 20;
const PAGE_SHIFT = 12;
const PAGE_BYTES = 1 << PAGE_SHIFT;

class FileSpill implements SpillFile {
  private fd: number | null;
  size = 0;
  private unsynced = 0;

  /** `create`: a new file (never one that exists); else one released by another thread. */
  constructor(
    readonly path: string,
    create: boolean,
    private readonly onDispose: () => void,
    private readonly onWrite: (bytes: number) => void,
    private readonly remove: (path: string) => void,
  ) {
    this.fd = openSync(
      path,
      constants.O_RDWR | constants.O_NOFOLLOW | (create ? constants.O_CREAT | constants.O_EXCL : 0),
      0o600,
    );
  }

  append(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.length)
      done += writeSync(this.fd!, bytes, done, bytes.length - done, this.size + done);
    this.size += bytes.length;
    this.dirtied(bytes.length);
  }

  private dirtied(bytes: number): void {
    this.onWrite(bytes);
    this.unsynced += bytes;
    // Dirty page cache is charged to the worker's memory cgroup and cannot be reclaimed
    // until written back: a 1 GB Perfetto trace spills ~2.7 GB, and without this its worker
    // was killed at a 512 MiB cap with 1.9 GB of dirty spill pages. Once synced, the pages
    // are clean cache the kernel can drop under the cap.
    if (this.unsynced >= SYNC_EVERY_BYTES) {
      fdatasyncSync(this.fd!);
      this.unsynced = 0;
    }
  }

  appendedElsewhere(bytes: number): void {
    this.size += bytes;
    this.onWrite(bytes);
  }

  overwrite(bytes: Uint8Array, position: number): void {
    if (position < 0 || position + bytes.length > this.size)
      throw new RangeError("spill overwrite past the end of the file");
    let done = 0;
    while (done < bytes.length)
      done += writeSync(this.fd!, bytes, done, bytes.length - done, position + done);
    // A patch of a few bytes dirties a whole page again: count pages, as appends count bytes.
    this.dirtied(PAGE_BYTES * (1 + (((position % PAGE_BYTES) + bytes.length - 1) >> PAGE_SHIFT)));
  }

  read(target: Uint8Array, position: number): number {
    let done = 0;
    while (done < target.length && position + done < this.size) {
      const n = readSync(this.fd!, target, done, target.length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  dispose(): void {
    if (this.fd === null) return;
    this.close();
    this.remove(this.path);
    this.onDispose();
  }

  /** Closes the file and keeps it (see FileSpillSpace.release). */
  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * Appends to a spill file that another thread of this process created (FileSpill), through its
 * path: what a thread writing a run for the parser uses. Synced as FileSpill syncs, for the same
 * reason; the creating thread counts the bytes (`appendedElsewhere`) once this one is done.
 */
export class SpillAppender implements Pick<SpillFile, "append"> {
  private readonly fd: number;
  size = 0;
  private unsynced = 0;

  constructor(path: string) {
    this.fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW);
  }

  append(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.length)
      done += writeSync(this.fd, bytes, done, bytes.length - done, this.size + done);
    this.size += bytes.length;
    this.unsynced += bytes.length;
    if (this.unsynced >= SYNC_EVERY_BYTES) {
      fdatasyncSync(this.fd);
      this.unsynced = 0;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
