/** Reading adapter output in tests: rows as objects, per-function sums, table invariants. */
import { expect } from "bun:test";
import { TRACK_COLUMNS, type FrameMetric } from "../../src/domain/evidence-schema.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import type { CellValue, TableBuffer } from "../../src/domain/table-buffer.ts";
import { functionKey } from "./reference-cpuprofile.ts";

export type Row = Record<string, CellValue>;

export function rowsOf(table: TableBuffer): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < table.rowCount; i++) {
    const row: Row = {};
    for (const column of table.schema.columns) row[column.name] = table.column(column.name)[i];
    rows.push(row);
  }
  return rows;
}

/** Event rows with their track's columns joined by track_id (null where no track row names it). */
export function joinTracks(events: Row[], tracks: Row[]): Row[] {
  const byId = new Map(tracks.map((t) => [t.track_id as string, t]));
  return events.map((event) => {
    const track = byId.get(event.track_id as string);
    const joined: Row = {};
    for (const [name, value] of Object.entries(event)) {
      joined[name] = value;
      if (name === "track_id")
        for (const column of TRACK_COLUMNS)
          joined[column] = event[column] ?? track?.[column] ?? null;
    }
    return joined;
  });
}

/**
 * `events` followed by the events `counters` (trace_counters rows) stand for, as readers see
 * them: phase "C", args {"value":N} as JSON.stringify writes them, depth 0, the track named by
 * its track_index in `tracks`. Readings come in (track_index, ts_ns, event_index) order, the
 * order their events had when they were stored as trace_events rows.
 */
export function withCounterRows(events: Row[], counters: Row[], tracks: Row[]): Row[] {
  const idOf = new Map(
    tracks.filter((t) => t.track_index !== null).map((t) => [Number(t.track_index), t.track_id]),
  );
  const sorted = [...counters].sort(
    (a, b) =>
      Number(a.track_index) - Number(b.track_index) ||
      Number(
        BigInt(a.ts_ns as string | number | bigint) - BigInt(b.ts_ns as string | number | bigint),
      ) ||
      Number(a.event_index) - Number(b.event_index),
  );
  return [
    ...events,
    ...sorted.map((r) => ({
      event_index: r.event_index,
      track_id: idOf.get(Number(r.track_index)) ?? null,
      name: r.name,
      category: null,
      phase: "C",
      ts_ns: r.ts_ns,
      dur_ns: null,
      depth: 0,
      args_json: JSON.stringify({ value: r.value }),
      flags: null,
      thread_dur_ns: null,
    })),
  ];
}

/** An evidence's trace_events rows as readers see them (see joinTracks, withCounterRows). */
export function traceEventRows(evidence: NormalizedEvidence): Row[] {
  const tracks = rowsOf(evidence.tables.tracks);
  return joinTracks(
    withCounterRows(
      rowsOf(evidence.tables.trace_events),
      rowsOf(evidence.tables.trace_counters),
      tracks,
    ),
    tracks,
  );
}

export interface FunctionTotals {
  selfNs: number;
  selfSamples: number;
  inclusiveNs: number;
}

/**
 * Self values per "function @ file" (cpu) or per function name (wall), summed over tracks and
 * lines.
 */
export function totalsByFunction(
  evidence: NormalizedEvidence,
  metric: FrameMetric,
): Map<string, FunctionTotals> {
  const frames = new Map(rowsOf(evidence.tables.frames).map((f) => [f.frame_id as string, f]));
  const out = new Map<string, FunctionTotals>();
  for (const m of rowsOf(evidence.tables.frame_measurements)) {
    if (m.metric !== metric) continue;
    const frame = frames.get(m.frame_id as string)!;
    const key =
      metric === "cpu_time"
        ? functionKey(frame.function as string, frame.file as string | null)
        : (frame.function as string);
    const entry = out.get(key) ?? { selfNs: 0, selfSamples: 0, inclusiveNs: 0 };
    entry.selfNs += Number(m.self_value);
    entry.selfSamples += Number(m.self_samples);
    entry.inclusiveNs += Number(m.inclusive_value);
    out.set(key, entry);
  }
  return out;
}

export function sumOf(
  rows: Row[],
  column: string,
  where: (row: Row) => boolean = () => true,
): number {
  return rows.filter(where).reduce((total, row) => total + Number(row[column]), 0);
}

/** Invariants every adapter output must satisfy, whatever the input. */
export function expectTableInvariants(evidence: NormalizedEvidence): void {
  const frames = rowsOf(evidence.tables.frames);
  const ids = new Set(frames.map((f) => f.frame_id as string));
  expect(ids.size).toBe(frames.length);
  const known = (id: CellValue) => expect(ids.has(id as string)).toBe(true);

  const measurements = rowsOf(evidence.tables.frame_measurements);
  for (const m of measurements) {
    known(m.frame_id);
    expect(m.unit).toBe("ns");
    expect(Number(m.self_value)).toBeGreaterThanOrEqual(0);
    expect(Number(m.inclusive_value)).toBeGreaterThanOrEqual(Number(m.self_value));
    expect(Number(m.inclusive_samples)).toBeGreaterThanOrEqual(Number(m.self_samples));
  }
  const keys = measurements.map((m) => `${m.metric}|${m.frame_id}|${m.track_id}`);
  expect(new Set(keys).size).toBe(keys.length);

  for (const edge of rowsOf(evidence.tables.call_edges)) {
    known(edge.parent_frame_id);
    known(edge.child_frame_id);
    expect(Number(edge.sample_count)).toBeGreaterThan(0);
    expect(Number(edge.duration_ns)).toBeGreaterThanOrEqual(0);
  }
  const stacks = rowsOf(evidence.tables.stacks);
  for (const stack of stacks) {
    const path = stack.frame_ids as string[];
    expect(path.length).toBeGreaterThan(0);
    path.forEach(known);
    expect(stack.leaf_frame_id).toBe(path[path.length - 1]!);
    expect(Number(stack.sample_count)).toBeGreaterThan(0);
    if (stack.first_ts_ns !== null) expect(typeof stack.first_ts_ns).toBe("bigint");
  }
  expect(new Set(stacks.map((s) => s.stack_id)).size).toBe(stacks.length);

  // cpu_time: every attributed sample is the leaf of exactly one stack and one frame's self.
  const cpuSelfSamples = sumOf(measurements, "self_samples", (m) => m.metric === "cpu_time");
  const cpuSelfNs = sumOf(measurements, "self_value", (m) => m.metric === "cpu_time");
  expect(sumOf(stacks, "sample_count", (s) => s.metric === "cpu_time")).toBe(cpuSelfSamples);
  expect(sumOf(stacks, "duration_ns", (s) => s.metric === "cpu_time")).toBe(cpuSelfNs);

  for (const event of traceEventRows(evidence)) {
    expect(event.depth as number).toBeGreaterThanOrEqual(0);
    expect(typeof event.ts_ns).toBe("bigint");
    if (event.dur_ns !== null) expect(Number(event.dur_ns)).toBeGreaterThanOrEqual(0);
  }
}
