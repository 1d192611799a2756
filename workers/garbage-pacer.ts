/**
 * Paces full garbage collections in the parse worker by bytes processed. Parsing and row
 * building make short-lived buffers (read chunks, per-batch views, row builders, Arrow
 * batches) faster than Bun's collector reclaims them on its own: left alone, a 2 GB
 * trace's worker swung between 0.5 and 1.5 GB of RSS while holding a few hundred MB of
 * live data. A collection every few tens of MiB costs milliseconds and keeps RSS near the
 * live size.
 */
export class GarbagePacer {
  private since = 0;

  constructor(private readonly everyBytes: number) {}

  /** Counts `bytes` processed; collects when the budget is used up. */
  add(bytes: number): void {
    this.since += bytes;
    if (this.since >= this.everyBytes) {
      this.since = 0;
      Bun.gc(true);
    }
  }
}
