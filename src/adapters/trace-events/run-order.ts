/**
 * The order of one run's kept events: by track, then start, then input order. A counting
 * sort groups the tracks (stable, linear); each track's events are then sorted by start
 * only when they are not already in order, which is the norm for traces written as they
 * were recorded. Out-of-order tracks are usually almost in order (a counter or an instant
 * written after the slices it precedes), so they are first put in order by insertion, which
 * costs a step per place an event moves back; past a budget of such steps, a general sort
 * takes over.
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
        sortByStart(order.subarray(from, to), start);
        break;
      }
    }
  }
  return order;
}

/** Average steps back an event may take by insertion before a comparison sort takes over. */
const INSERTION_STEPS = 8;

/** Sorts positions (ascending on entry) by (start, position), in place. */
function sortByStart(positions: Int32Array, start: Float64Array): void {
  let budget = INSERTION_STEPS * positions.length;
  // Positions come in ascending order, so an event moved back only past later starts stays
  // after the equal starts before it: the order is (start, position).
  for (let k = 1; k < positions.length; k++) {
    const i = positions[k]!;
    const s = start[i]!;
    let j = k - 1;
    if (!(start[positions[j]!]! > s)) {
      if (Number.isNaN(s)) return sortByComparison(positions, start);
      continue;
    }
    do {
      positions[j + 1] = positions[j]!;
      j--;
    } while (j >= 0 && start[positions[j]!]! > s && --budget > 0);
    positions[j + 1] = i;
    if (budget <= 0) return sortByComparison(positions, start);
  }
}

/** The general sort, from positions in ascending order as on entry (a NaN start orders by them). */
function sortByComparison(positions: Int32Array, start: Float64Array): void {
  positions.sort();
  positions.sort((a, b) => start[a]! - start[b]! || a - b);
}
