/**
 * Online B/E pairing for one track, fed in timestamp order (input order on ties). An E
 * closes the innermost open B of the same name (an E without a name closes the innermost
 * B); B events it skips over are closed with it and flagged unmatched. An E that matches
 * no open B is counted and dropped. B events still open at the track's end are closed
 * there and flagged unmatched. Open B events are handles chosen by the caller. The E's
 * thread clock reading, when it has one, is passed on to the B it matches (the B's thread
 * time is its own to subtract); closed unmatched, a B gets none.
 */
export interface BeginEndCounts {
  unmatchedBegin: number;
  unmatchedEnd: number;
}

/**
 * Called for each B when its end is known; `endThreadNs` is the matching E's thread clock (NaN:
 * none, or unmatched).
 */
export type CloseBegin = (
  handle: number,
  endNs: number,
  unmatched: boolean,
  endThreadNs: number,
) => void;

export class BeginEndMatcher {
  private readonly open: number[] = [];
  private readonly openNames: unknown[] = [];

  constructor(
    readonly counts: BeginEndCounts,
    private readonly close: CloseBegin,
  ) {}

  /** B events open now. */
  get openCount(): number {
    return this.open.length;
  }

  /** The earliest B still waiting for its end (handles grow in feeding order), or Infinity. */
  get oldestOpen(): number {
    return this.open.length > 0 ? this.open[0]! : Number.POSITIVE_INFINITY;
  }

  /** A B event; `name` is its `name` field (any JSON value; only strings name a slice). */
  begin(handle: number, name: unknown): void {
    this.open.push(handle);
    this.openNames.push(name);
  }

  /** An E event at `endNs` (its thread clock `endThreadNs`, NaN when it has none). */
  end(endNs: number, name: unknown, endThreadNs = Number.NaN): void {
    const at = this.innermostMatch(name);
    if (at < 0) {
      this.counts.unmatchedEnd++;
      return;
    }
    while (this.open.length > at + 1) {
      this.openNames.pop();
      this.close(this.open.pop()!, endNs, true, Number.NaN);
      this.counts.unmatchedBegin++;
    }
    this.openNames.pop();
    this.close(this.open.pop()!, endNs, false, endThreadNs);
  }

  /** Closes the B events still open at the track's last timestamp. */
  finish(trackEndNs: number): void {
    for (const handle of this.open) {
      this.close(handle, trackEndNs, true, Number.NaN);
      this.counts.unmatchedBegin++;
    }
    this.open.length = 0;
    this.openNames.length = 0;
  }

  private innermostMatch(endName: unknown): number {
    const n = this.open.length;
    if (n === 0) return -1;
    if (typeof endName !== "string" || endName.length === 0) return n - 1;
    for (let k = n - 1; k >= 0; k--) if (this.openNames[k] === endName) return k;
    // A nameless B can only be closed by position.
    return typeof this.openNames[n - 1] === "string" ? -1 : n - 1;
  }
}
