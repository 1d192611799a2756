/**
 * Callers, callees and stack examples of one frame, read from the decoded `call_edges` and
 * `stacks` parts of the subject's generations without the SQL engine. Each part is indexed
 * once by frame (parts are immutable), so a warm query touches only the rows of the frame
 * asked about. The answers are those of the engine queries they replace (kept as the
 * reference in tests/unit/drilldown-readers.test.ts): sums over rows grouped by frame or
 * stack, ordered by duration, then samples, then id in the engine's text order.
 */
import type { DecodedPart } from "./evidence-parts.ts";
import { plainColumn } from "./evidence-reader.ts";
import { listUtf8Rows } from "./list-columns.ts";
import { compareText } from "./text-order.ts";

export const CALL_EDGE_COLUMNS = [
  "metric",
  "parent_frame_id",
  "child_frame_id",
  "sample_count",
  "duration_ns",
];
export const STACK_COLUMNS = ["stack_id", "metric", "frame_ids", "sample_count", "duration_ns"];

export interface Aggregate {
  id: string;
  sample_count: number;
  duration_ns: number;
}

export interface Ranked<T> {
  total: number;
  page: T[];
}

/**
 * Distinct metrics of the call edges, sorted (the engine's
 * `SELECT DISTINCT metric ... ORDER BY metric`).
 */
export function edgeMetrics(parts: readonly DecodedPart[]): string[] {
  const all = new Set<string>();
  for (const part of parts) {
    for (const m of part.derive("edges:metrics", () => {
      const metrics = new Set<string>();
      for (const v of plainColumn(part, "metric")) if (typeof v === "string") metrics.add(v);
      return { value: metrics, bytes: 64 * metrics.size };
    }))
      all.add(m);
  }
  return [...all].sort(compareText);
}

/**
 * Callers (`by` the child column, grouped by parent) or callees (the reverse) of a frame,
 * or of all the frames of one function (`frameIds`). Neighbours are summed per `groupOf`
 * their id (the frame itself by default); a group is named by its costliest frame.
 */
export function edgeNeighbours(
  parts: readonly DecodedPart[],
  direction: "callers" | "callees",
  frameIds: readonly string[],
  metric: string,
  limit: number,
  offset: number,
  groupOf: (id: string) => string = (id) => id,
): Ranked<Aggregate> {
  const [keyColumn, otherColumn] =
    direction === "callers"
      ? ["child_frame_id", "parent_frame_id"]
      : ["parent_frame_id", "child_frame_id"];
  const sums = new Map<string, Aggregate & { members: Map<string, number> }>();
  for (const part of parts) {
    const index = rowsByValue(part, keyColumn);
    const metrics = plainColumn(part, "metric");
    const other = plainColumn(part, otherColumn);
    const samples = plainColumn(part, "sample_count");
    const durations = plainColumn(part, "duration_ns");
    for (const frameId of frameIds) {
      for (const r of index.get(frameId) ?? []) {
        if (metrics[r] !== metric) continue;
        const id = other[r] as string;
        const key = groupOf(id);
        let sum = sums.get(key);
        if (!sum)
          sums.set(key, (sum = { id, sample_count: 0, duration_ns: 0, members: new Map() }));
        const duration = Number(durations[r] ?? 0);
        sum.sample_count += Number(samples[r] ?? 0);
        sum.duration_ns += duration;
        sum.members.set(id, (sum.members.get(id) ?? 0) + duration);
      }
    }
  }
  const aggregates = [...sums.values()].map(({ members, ...sum }) => {
    let lead = sum.id;
    for (const [id, d] of members)
      if (d > members.get(lead)! || (d === members.get(lead)! && compareText(id, lead) < 0))
        lead = id;
    return { ...sum, id: lead };
  });
  const ranked = aggregates.sort(byCost);
  return { total: ranked.length, page: ranked.slice(offset, offset + limit) };
}

export interface StackAggregate extends Aggregate {
  frame_ids: string[];
}

/**
 * Whole stacks that contain the frame (any of `frameIds`, the frames of one function), summed per
 * stack.
 */
export function stackExamples(
  parts: readonly DecodedPart[],
  frameIds: readonly string[],
  metric: string,
  limit: number,
  offset: number,
): Ranked<StackAggregate> {
  const sums = new Map<string, StackAggregate>();
  const stackIds = new Set<string>();
  for (const part of parts) {
    const index = stackRowsByFrame(part);
    // A stack through several lines of the function is one example.
    const rows =
      frameIds.length === 1
        ? index.get(frameIds[0]!)
        : [...new Set(frameIds.flatMap((id) => index.get(id) ?? []))].sort((a, b) => a - b);
    if (!rows) continue;
    const metrics = plainColumn(part, "metric");
    const ids = plainColumn(part, "stack_id");
    const samples = plainColumn(part, "sample_count");
    const durations = plainColumn(part, "duration_ns");
    const lists = part.arrow.getChild("frame_ids");
    for (const r of rows) {
      if (metrics[r] !== metric) continue;
      const id = ids[r] as string;
      const frames = listOf(lists?.get(r));
      // Grouped by stack and its frames, as the engine query was; totals count stacks.
      const key = `${id}\u0000${frames.join("\u0001")}`;
      const sum = sums.get(key) ?? { id, frame_ids: frames, sample_count: 0, duration_ns: 0 };
      sum.sample_count += Number(samples[r] ?? 0);
      sum.duration_ns += Number(durations[r] ?? 0);
      sums.set(key, sum);
      stackIds.add(id);
    }
  }
  const ranked = [...sums.values()].sort(byCost);
  return { total: stackIds.size, page: ranked.slice(offset, offset + limit) };
}

function byCost(a: Aggregate, b: Aggregate): number {
  return (
    b.duration_ns - a.duration_ns || b.sample_count - a.sample_count || compareText(a.id, b.id)
  );
}

/** Row numbers of a part by the value of one text column, built once per part. */
function rowsByValue(part: DecodedPart, column: string): Map<string, number[]> {
  return part.derive(`rows-by:${column}`, () => {
    const index = new Map<string, number[]>();
    const values = plainColumn(part, column);
    for (let r = 0; r < values.length; r++) {
      const v = values[r];
      if (typeof v !== "string") continue;
      const rows = index.get(v);
      if (rows) rows.push(r);
      else index.set(v, [r]);
    }
    return { value: index, bytes: 16 * values.length + 64 * index.size };
  });
}

/** Row numbers of a `stacks` part by every frame on the row's stack (each row once per frame). */
function stackRowsByFrame(part: DecodedPart): Map<string, number[]> {
  return part.derive("rows-by:frame_ids", () => {
    const index = new Map<string, number[]>();
    const lists = part.arrow.getChild("frame_ids");
    let entries = 0;
    let r = 0;
    for (const ids of lists ? listUtf8Rows(lists) : []) {
      for (const frame of new Set(ids)) {
        const rows = index.get(frame);
        if (rows) rows.push(r);
        else index.set(frame, [r]);
        entries += 1;
      }
      r += 1;
    }
    return { value: index, bytes: 8 * entries + 64 * index.size };
  });
}

function listOf(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  return Array.from(value as Iterable<unknown>, (v) => String(v));
}
