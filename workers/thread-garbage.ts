/**
 * Paces full collections on a worker thread by the bytes its tasks have handled. A thread's heap
 * is its own, which the parse worker's memory governor (memory-governor.ts) does not reach, and
 * the encode thread leaves garbage behind with each part (its encoded copy; before parts were
 * written as IPC streams into a reused buffer (arrow-ipc-stream.ts), also its Arrow objects and
 * stream: 10-20 MB for an 8 MiB trace_events part). A full collection after
 * every part was ~600 ms of a 100 MB Perfetto import's encode thread; young collections alone
 * (Bun.gc(false)) do not free ArrayBuffers: the thread's heap then held up to ~110 MB more at
 * 600 MB (heapStats after each part: 210 against 121 MB).
 *
 * Counted in input bytes, not read from the heap: bun:jsc's heapSize() in a long-lived thread
 * did not always grow with the ArrayBuffers made since the last collection.
 */

/**
 * Input bytes handled between two full collections: two trace_events parts (BYTES_PER_PART in
 * table-parts.ts), which leave ~20-40 MB behind.
 */
export const THREAD_GARBAGE_INPUT_BYTES = 16 << 20;

export class ThreadGarbage {
  private handled = 0;
  /** Full collections made (for tests). */
  collections = 0;

  constructor(
    private readonly collect: () => void = () => Bun.gc(true),
    private readonly allowance = THREAD_GARBAGE_INPUT_BYTES,
  ) {}

  /** After a task that handled `inputBytes`: a full collection once the allowance is reached. */
  settle(inputBytes: number): void {
    this.handled += inputBytes;
    if (this.handled < this.allowance) return;
    this.collect();
    this.collections++;
    this.handled = 0;
  }
}
