/**
 * Trace-window queries over decoded `trace_events` parts, without the SQL engine.
 *
 * Each part is indexed once (parts are immutable): its rows in (ts_ns, event_index) order,
 * their start and end times, and a running maximum of end times in that order. A window
 * [start, end] then needs two binary searches and a scan of only the rows that begin
 * before `end` and after the last point where every earlier slice had already finished
 * before `start`. Answers equal the engine query they replace: rows with
 * `ts_ns <= end AND ts_ns + coalesce(dur_ns, 0) >= start`, ordered by (ts_ns, event_index).
 *
 * Times are int64 nanoseconds. Within one part they are held as doubles relative to the
 * part's earliest timestamp, which is exact while the part spans under 2^53 ns (104 days);
 * a part spanning more keeps exact bigint offsets instead.
 */
import type { DecodedPart } from "./evidence-parts.ts";

export const TRACE_WINDOW_COLUMNS = [
  "event_index",
  "name",
  "category",
  "phase",
  "ts_ns",
  "dur_ns",
  "thread_dur_ns",
  "depth",
  "track_id",
  "process_name",
  "thread_name",
  "args_json",
  "flags",
];

type Key = number | bigint;

interface WindowIndex {
  /** The part's earliest ts_ns, the origin of the relative times. */
  base: bigint;
  /** max(ts_ns + coalesce(dur_ns, 0)) over the part. */
  maxEnd: bigint;
  /** Row numbers in (ts_ns, event_index) order. */
  order: Int32Array;
  /** Relative start and end of each row, in `order`. */
  start: ArrayLike<Key>;
  end: ArrayLike<Key>;
  /** Running maximum of `end` in `order`. */
  reach: ArrayLike<Key>;
  /** event_index of each row, in `order` (for merging parts). */
  eventIndex: Float64Array;
  /** Times are doubles (exact); otherwise bigint offsets. */
  doubles: boolean;
  /** No row ends before it begins, so a row beginning inside a window overlaps it. */
  noNegativeDurations: boolean;
}

const SAFE = 2n ** 53n;
const TWO32 = 4294967296;

function windowIndex(part: DecodedPart): WindowIndex {
  return part.derive("trace-window:index", () => {
    const index = relativeIndex(part) ?? exactIndex(part);
    return { value: index, bytes: part.rows * (4 + 8 * 4) };
  });
}

/** One int64 column of a part as 32-bit halves (little-endian), with validity; null when absent. */
function int64Halves(
  part: DecodedPart,
  name: string,
): { lo: Uint32Array; hi: Int32Array; valid: Uint8Array | null } | null {
  const n = part.rows;
  const lo = new Uint32Array(n);
  const hi = new Int32Array(n);
  let valid: Uint8Array | null = null;
  let row = 0;
  for (const batch of part.arrow.batches) {
    const column = batch.getChild(name);
    if (!column) return null;
    for (const data of column.data) {
      const values = data.values as unknown as BigInt64Array;
      const words = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
      const start = values.length === data.length ? 0 : data.offset;
      for (let i = 0; i < data.length; i++) {
        lo[row + i] = words[2 * (start + i)]! >>> 0;
        hi[row + i] = words[2 * (start + i) + 1]!;
      }
      if (data.nullCount > 0) {
        valid ??= new Uint8Array(n).fill(1);
        const bits = data.nullBitmap!;
        for (let i = 0; i < data.length; i++) {
          const bit = data.offset + i;
          valid[row + i] = (bits[bit >> 3]! >> (bit & 7)) & 1;
        }
      }
      row += data.length;
    }
  }
  return row === n ? { lo, hi, valid } : null;
}

/**
 * The index with times as doubles relative to the part's earliest timestamp, computed from
 * the int64 halves without a BigInt per row. Null when a relative time could exceed 2^53.
 */
function relativeIndex(part: DecodedPart): WindowIndex | null {
  const n = part.rows;
  const ts = int64Halves(part, "ts_ns");
  const events = int64Halves(part, "event_index");
  if (!ts || !events || n === 0) return null;
  const dur = int64Halves(part, "dur_ns");
  let baseRow = 0;
  for (let r = 1; r < n; r++) {
    if (ts.hi[r]! < ts.hi[baseRow]! || (ts.hi[r] === ts.hi[baseRow] && ts.lo[r]! < ts.lo[baseRow]!))
      baseRow = r;
  }
  const baseHi = ts.hi[baseRow]!;
  const baseLo = ts.lo[baseRow]!;
  const startRel = new Float64Array(n);
  const endRel = new Float64Array(n);
  const eventOf = new Float64Array(n);
  let maxEndRow = 0;
  for (let r = 0; r < n; r++) {
    const start = (ts.hi[r]! - baseHi) * TWO32 + (ts.lo[r]! - baseLo);
    // A null duration counts as 0, as coalesce(dur_ns, 0) did.
    const d = dur && (!dur.valid || dur.valid[r]) ? dur.hi[r]! * TWO32 + dur.lo[r]! : 0;
    const end = start + d;
    if (!(Math.abs(start) < 2 ** 53 && Math.abs(d) < 2 ** 53 && Math.abs(end) < 2 ** 53))
      return null;
    startRel[r] = start;
    endRel[r] = end;
    eventOf[r] = events.hi[r]! * TWO32 + events.lo[r]!;
    if (end > endRel[maxEndRow]!) maxEndRow = r;
  }
  const base = (BigInt(baseHi) << 32n) + BigInt(baseLo);
  return sortedIndex(base, base + BigInt(endRel[maxEndRow]!), startRel, endRel, eventOf, true);
}

/** The index with exact bigint offsets, for a part whose times span 2^53 ns or more. */
function exactIndex(part: DecodedPart): WindowIndex {
  const n = part.rows;
  const ts = new Array<bigint>(n);
  const ends = new Array<bigint>(n);
  const events = new Float64Array(n);
  let i = 0;
  for (const v of part.arrow.getChild("ts_ns") ?? []) ts[i++] = BigInt(v as bigint | number);
  i = 0;
  for (const v of part.arrow.getChild("dur_ns") ?? [])
    (ends[i] = ts[i]! + (v === null || v === undefined ? 0n : BigInt(v as bigint | number))), i++;
  for (; i < n; i++) ends[i] = ts[i]!;
  i = 0;
  for (const v of part.arrow.getChild("event_index") ?? []) events[i++] = Number(v);
  let base = ts[0] ?? 0n;
  let maxEnd = ends[0] ?? 0n;
  for (let r = 1; r < n; r++) {
    if (ts[r]! < base) base = ts[r]!;
    if (ends[r]! > maxEnd) maxEnd = ends[r]!;
  }
  const startRel = ts.map((t) => t - base);
  const endRel = ends.map((e) => e - base);
  return sortedIndex(base, maxEnd, startRel, endRel, events, false);
}

function sortedIndex(
  base: bigint,
  maxEnd: bigint,
  startRel: ArrayLike<Key>,
  endRel: ArrayLike<Key>,
  events: Float64Array,
  doubles: boolean,
): WindowIndex {
  const n = startRel.length;
  const order = new Int32Array(n);
  let sorted = true;
  for (let r = 0; r < n; r++) {
    order[r] = r;
    if (
      r > 0 &&
      (startRel[r - 1]! > startRel[r]! ||
        (startRel[r - 1] === startRel[r] && events[r - 1]! > events[r]!))
    )
      sorted = false;
  }
  if (!sorted)
    order.sort((a, b) =>
      startRel[a]! < startRel[b]! ? -1 : startRel[a]! > startRel[b]! ? 1 : events[a]! - events[b]!,
    );
  const start: Key[] | Float64Array = doubles ? new Float64Array(n) : new Array<Key>(n);
  const end: Key[] | Float64Array = doubles ? new Float64Array(n) : new Array<Key>(n);
  const reach: Key[] | Float64Array = doubles ? new Float64Array(n) : new Array<Key>(n);
  const eventIndex = new Float64Array(n);
  let noNegativeDurations = true;
  for (let k = 0; k < n; k++) {
    const r = order[k]!;
    start[k] = startRel[r]! as number;
    end[k] = endRel[r]! as number;
    reach[k] = (k === 0 || end[k]! > reach[k - 1]! ? end[k]! : reach[k - 1]!) as number;
    eventIndex[k] = events[r]!;
    if (end[k]! < start[k]!) noNegativeDurations = false;
  }
  return { base, maxEnd, order, start, end, reach, eventIndex, doubles, noNegativeDurations };
}

/** A query bound relative to a part's origin, clamped where it lies beyond every row. */
function relative(index: WindowIndex, value: bigint): Key {
  const v = value - index.base;
  if (!index.doubles) return v;
  if (v >= SAFE) return Number.POSITIVE_INFINITY;
  if (v <= -SAFE) return Number.NEGATIVE_INFINITY;
  return Number(v);
}

/**
 * First position whose value passes `test`, for a test that is false then true along the values.
 */
function firstWhere(values: ArrayLike<Key>, test: (v: Key) => boolean): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (test(values[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export interface WindowRow {
  part: DecodedPart;
  row: number;
}

export interface WindowPage {
  total: number;
  rows: WindowRow[];
  bounds: { start_ns: string | null; end_ns: string | null };
}

/** Rows overlapping [startNs, endNs] across the parts: their count and the page at offset. */
export function traceWindowRows(
  parts: readonly DecodedPart[],
  startNs: bigint,
  endNs: bigint,
  limit: number,
  offset: number,
): WindowPage {
  let total = 0;
  const wanted = offset + limit;
  let candidates: { part: DecodedPart; index: WindowIndex; k: number }[] = [];
  let minStart: bigint | null = null;
  let maxEnd: bigint | null = null;
  for (const part of parts) {
    if (part.rows === 0) continue;
    const index = windowIndex(part);
    if (minStart === null || index.base < minStart) minStart = index.base;
    if (maxEnd === null || index.maxEnd > maxEnd) maxEnd = index.maxEnd;
    const qStart = relative(index, startNs);
    const qEnd = relative(index, endNs);
    // Rows at or after `hi` begin after the window; rows before `from` all end before it.
    const hi = firstWhere(index.start, (v) => v > qEnd);
    const from = firstWhere(index.reach, (v) => v >= qStart);
    // Rows from `inside` on begin within the window, so (with no negative duration) all
    // overlap it: only the rows before it need their end checked, the rest are counted.
    const inside = index.noNegativeDurations
      ? Math.max(
          from,
          firstWhere(index.start, (v) => v >= qStart),
        )
      : hi;
    let matched = 0;
    for (let k = from; k < Math.min(inside, hi); k++) {
      if (index.end[k]! < qStart) continue;
      // Only the first `offset + limit` matches of each part can be on the page.
      if (matched < wanted) candidates.push({ part, index, k });
      matched += 1;
    }
    const bulk = Math.max(0, hi - inside);
    for (let k = inside; k < inside + bulk && matched + (k - inside) < wanted; k++)
      candidates.push({ part, index, k });
    total += matched + bulk;
  }
  if (parts.length > 1) {
    // Each part's candidates are in order already; merging needs their absolute times.
    const keyed = candidates.map((c) => ({
      c,
      ts: c.index.base + BigInt(c.index.start[c.k]!),
      event: c.index.eventIndex[c.k]!,
    }));
    keyed.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.event - b.event));
    candidates = keyed.map((k) => k.c);
  }
  return {
    total,
    rows: candidates.slice(offset, wanted).map((c) => ({ part: c.part, row: c.index.order[c.k]! })),
    bounds: { start_ns: minStart?.toString() ?? null, end_ns: maxEnd?.toString() ?? null },
  };
}
