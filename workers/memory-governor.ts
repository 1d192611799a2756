/**
 * Paces full garbage collections in the parse worker by its resident size. Parsing and
 * row building make short-lived buffers (read chunks, per-batch views, row builders,
 * Arrow batches, IPC streams) faster than Bun's collector reclaims them on its own: left
 * alone, a 2 GB trace's worker swung between 0.5 and 1.5 GB of RSS while holding a few
 * hundred MB of live data.
 *
 * Collecting at fixed byte intervals kept RSS flat but cost ~16% of a 200 MB trace's
 * import (189 full collections, ~13 ms each). The governor instead lets garbage grow up
 * to a target below the worker's memory budget and collects only when RSS reaches it:
 * a small live set then gets few collections, a large one as many as it needs. After a
 * collection that leaves RSS near or above the target (the live data is that large), the
 * next comes only after MIN_GROWTH_BYTES more, so a big live set does not collect at
 * every checkpoint.
 */

/**
 * RSS the worker lets garbage grow to, whatever its budget: the 512 MB peak the imports are held
 * to, less headroom for the encoder.
 */
const MAX_TARGET_BYTES = 352 << 20;
/**
 * Of a smaller budget, the share RSS may grow to before a collection: the rest is headroom for what
 * is allocated between checkpoints.
 */
const TARGET_SHARE = 0.5;
const MIN_GROWTH_BYTES = 32 << 20;

export class MemoryGovernor {
  readonly target: number;
  private ceiling: number;
  /** Collections made (for figures and tests). */
  collections = 0;

  constructor(
    budgetBytes: number,
    private readonly rss: () => number = () => process.memoryUsage.rss(),
    private readonly collect: () => void = () => Bun.gc(true),
  ) {
    this.target = Math.min(MAX_TARGET_BYTES, Math.floor(budgetBytes * TARGET_SHARE));
    this.ceiling = this.target;
  }

  /**
   * Called wherever garbage is made: collects when RSS has reached the ceiling. Reading RSS costs
   * 7.5 µs in a small process and ~25 µs in a busy worker (~190 ms of a 100 MB Perfetto import's
   * parser thread). Reading at most every 5 ms saved that; tried together with other changes,
   * the 2 GB real Perfetto trace's peak (where its scan ends and its first rows are built) rose
   * to 500 against 454 MiB in one run, so RSS is read at every checkpoint.
   */
  checkpoint(): void {
    if (this.rss() < this.ceiling) return;
    this.collect();
    this.collections++;
    this.ceiling = Math.max(this.target, this.rss() + MIN_GROWTH_BYTES);
  }
}
