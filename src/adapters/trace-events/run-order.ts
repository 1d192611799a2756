/**
 * The order of one run's kept events: by track, then start, then input order. A counting
 * sort groups the tracks (stable, linear); each track's events are then sorted by start
 * only when they are not already in order, which is the norm for traces written as they
 * were recorded.
 */
import { KIND_SKIPPED } from "./event-kinds.ts";
import type { TraceColumns } from "./trace-columns.ts";

export function runOrder(cols: TraceColumns): Int32Array {
  const n = cols.length;
  const kind = cols.kind.array;
  const track = cols.track.array;
  let tracks = 0;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    if (kind[i] === KIND_SKIPPED) continue;
    kept++;
    if (track[i]! + 1 > tracks) tracks = track[i]! + 1;
  }
  const starts = new Int32Array(tracks + 1);
  for (let i = 0; i < n; i++) if (kind[i] !== KIND_SKIPPED) starts[track[i]! + 1]!++;
  for (let t = 0; t < tracks; t++) starts[t + 1]! += starts[t]!;
  const fill = starts.slice(0, tracks);
  const order = new Int32Array(kept);
  for (let i = 0; i < n; i++) if (kind[i] !== KIND_SKIPPED) order[fill[track[i]!]!++] = i;
  const start = cols.startNs.array;
  for (let t = 0; t < tracks; t++) {
    const from = starts[t]!;
    const to = starts[t + 1]!;
    for (let k = from + 1; k < to; k++) {
      if (start[order[k - 1]!]! > start[order[k]!]!) {
        order.subarray(from, to).sort((a, b) => start[a]! - start[b]! || a - b);
        break;
      }
    }
  }
  return order;
}
