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
 * every checkpoint, and less near MAX_CEILING_BYTES, so the peak stays under 512 MiB.
 */
import { ResidentBytes } from "./resident-bytes.ts";

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
/**
 * RSS above which a large live set's garbage is allowed only MIN_STEP_BYTES of growth: the 512 MB
 * peak less headroom for the encode thread's heap and what is allocated between checkpoints. A
 * live set above the target then gets more collections the closer it comes, not a fixed 32 MiB of
 * garbage on top of it (the 2 GB real Perfetto trace's scan holds ~400-440 MiB live).
 */
const MAX_CEILING_BYTES = 448 << 20;
const MIN_STEP_BYTES = 8 << 20;
/**
 * How often RSS is read. A Perfetto trace's row batches checkpoint every ~0.25 ms; reading at each
 * was ~190 ms of a 100 MB import's ~5 s on the parser thread. Far below the ceiling, RSS is read at
 * most every READ_INTERVAL_MS: the parser allocates a few MB in that time, less than NEAR_BYTES.
 * Closer, the next read comes when RSS could first have reached the ceiling growing at that same
 * bound (NEAR_BYTES in READ_INTERVAL_MS, ~9.6 MiB a ms): 16 MiB below it, after ~1.7 ms; within
 * ~2.4 MiB, at every checkpoint. So the collection comes when it would have with a read at every
 * checkpoint, at a fraction of the reads (read every 5 ms whatever the distance, the 2 GB real
 * Perfetto trace's peak rose by ~40 MiB).
 */
const READ_INTERVAL_MS = 5;
const NEAR_BYTES = 48 << 20;
const GROWTH_BYTES_PER_MS = NEAR_BYTES / READ_INTERVAL_MS;

function residentBytesReader(): () => number {
  const resident = new ResidentBytes();
  return () => resident.read();
}

export class MemoryGovernor {
  readonly target: number;
  private ceiling: number;
  private readonly maxCeiling: number;
  /** No RSS read before this time (performance.now()): set by how far below the ceiling it was. */
  private nextRead = 0;
  /** Collections made (for figures and tests). */
  collections = 0;

  constructor(
    budgetBytes: number,
    private readonly rss: () => number = residentBytesReader(),
    private readonly collect: () => void = () => Bun.gc(true),
    private readonly now: () => number = () => performance.now(),
  ) {
    this.target = Math.min(MAX_TARGET_BYTES, Math.floor(budgetBytes * TARGET_SHARE));
    this.ceiling = this.target;
    this.maxCeiling = Math.max(this.target, Math.min(MAX_CEILING_BYTES, budgetBytes * 0.875));
  }

  /** Called wherever garbage is made: collects when RSS has reached the ceiling. */
  checkpoint(): void {
    if (this.now() < this.nextRead) return;
    const rss = this.rss();
    if (rss < this.ceiling) {
      this.nextRead =
        this.now() + Math.min(READ_INTERVAL_MS, (this.ceiling - rss) / GROWTH_BYTES_PER_MS);
      return;
    }
    this.collectNow();
  }

  /**
   * A pass has ended and what it held is garbage (a scan's buffers and scanner): collects now,
   * unless RSS is under half the target (a small import's garbage goes with its process), and the
   * ceiling starts again from what is left.
   */
  release(): void {
    if (this.rss() < this.target / 2) return;
    this.collectNow();
  }

  /** After a collection: garbage may grow MIN_GROWTH_BYTES, less near the largest ceiling. */
  private collectNow(): void {
    this.collect();
    this.collections++;
    const left = this.rss();
    this.ceiling = Math.max(
      this.target,
      Math.min(left + MIN_GROWTH_BYTES, Math.max(this.maxCeiling, left + MIN_STEP_BYTES)),
    );
    this.nextRead = 0;
  }
}
