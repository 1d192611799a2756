/**
 * Paces full collections on a worker thread by its own heap's growth. A thread's heap is its
 * own, which the parse worker's memory governor (memory-governor.ts) does not reach, and the
 * encode thread leaves 10-20 MB behind with each part (its Arrow objects, IPC stream and encoded
 * copy). Young collections alone (Bun.gc(false)) do not free ArrayBuffers: the thread's heap then
 * held up to ~110 MB more at 600 MB (heapStats after each part: 210 against 121 MB).
 */
import { heapSize } from "bun:jsc";

/**
 * Heap growth (JS objects and the ArrayBuffers they hold) allowed past the last full collection:
 * about two trace_events parts' leavings, so such parts are collected after every second or third.
 */
export const THREAD_GARBAGE_BYTES = 32 << 20;

export class ThreadGarbage {
  private collectAbove = 0;
  /** Full collections made (for tests). */
  collections = 0;

  constructor(
    private readonly size: () => number = heapSize,
    private readonly collect: () => void = () => Bun.gc(true),
    private readonly allowance = THREAD_GARBAGE_BYTES,
  ) {}

  /** After a task: a full collection once the heap has outgrown the last one's by the allowance. */
  settle(): void {
    if (this.size() < this.collectAbove) return;
    this.collect();
    this.collections++;
    this.collectAbove = this.size() + this.allowance;
  }
}
