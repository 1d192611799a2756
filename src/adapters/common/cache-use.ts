/**
 * Whether a cache of repeated inputs is worth consulting. Files whose every stack is new (already
 * aggregated collapsed stacks, heap profiles) would pay for the lookups and for remembering what
 * never comes back: after CHECK_EVERY lookups with fewer than one hit in eight, the cache rests
 * (is neither consulted nor filled) for RESTING lookups, then tries again.
 */
const CHECK_EVERY = 1 << 14;
const RESTING = 1 << 18;

export class CacheUse {
  /** Lookups answered (diagnostics and tests). */
  totalHits = 0;
  private lookups = 0;
  private hits = 0;
  private restUntil = 0;

  /** Counts a lookup; false while the cache rests (then it must not be consulted or filled). */
  look(): boolean {
    if (this.lookups++ < this.restUntil) return false;
    if ((this.lookups & (CHECK_EVERY - 1)) === 0) {
      if (this.hits * 8 < CHECK_EVERY) this.restUntil = this.lookups + RESTING;
      this.hits = 0;
    }
    return true;
  }

  /** The lookup just counted found what it looked for. */
  hit(): void {
    this.hits++;
    this.totalHits++;
  }
}
