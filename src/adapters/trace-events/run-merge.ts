/**
 * K-way merge of sorted runs into one stream ordered by (track, start, seq), with a
 * binary heap of run cursors. With one run (most traces fit in one) it is a pass-through.
 */
import type { EventCursor } from "./run-codec.ts";

export class RunMerge {
  private readonly heap: EventCursor[] = [];
  /** The cursor holding the current event, after `next()` returned true. */
  current: EventCursor | null = null;

  constructor(cursors: EventCursor[]) {
    for (const c of cursors) if (c.next()) this.heap.push(c);
    for (let k = (this.heap.length >> 1) - 1; k >= 0; k--) this.down(k);
  }

  next(): boolean {
    const heap = this.heap;
    if (this.current !== null) {
      // The previous event's cursor moves on (or leaves the heap) before the next pick.
      if (!this.current.next()) {
        const last = heap.pop()!;
        if (heap.length > 0 && last !== this.current) heap[0] = last;
      }
      if (heap.length > 0) this.down(0);
    }
    this.current = heap.length > 0 ? heap[0]! : null;
    return this.current !== null;
  }

  private down(k: number): void {
    const heap = this.heap;
    const n = heap.length;
    for (;;) {
      const l = 2 * k + 1;
      if (l >= n) return;
      const r = l + 1;
      const m = r < n && before(heap[r]!, heap[l]!) ? r : l;
      if (!before(heap[m]!, heap[k]!)) return;
      [heap[k], heap[m]] = [heap[m]!, heap[k]!];
      k = m;
    }
  }
}

function before(a: EventCursor, b: EventCursor): boolean {
  const ta = a.v.track[a.i]!;
  const tb = b.v.track[b.i]!;
  if (ta !== tb) return ta < tb;
  const sa = a.v.start[a.i]!;
  const sb = b.v.start[b.i]!;
  if (sa !== sb) return sa < sb;
  return a.v.seq[a.i]! < b.v.seq[b.i]!;
}
