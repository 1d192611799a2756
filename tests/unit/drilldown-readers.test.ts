/**
 * The purpose-built readers behind callers, callees, stack examples and trace windows give
 * the answers of the engine queries they replaced. Real corpus files go through import;
 * the reference is DuckDB-WASM running those queries (kept here verbatim) over the same
 * Parquet parts, for many frames, windows and pages. Two synthetic parts also check the
 * window reader's merge across parts and its exact handling of timestamps above 2^53.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tableFromArrays, type Table } from "apache-arrow";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { AnalysisEngine } from "../../src/analysis/engine.ts";
import type { DecodedPart } from "../../src/analysis/evidence-parts.ts";
import { traceWindowRows } from "../../src/analysis/trace-window-reader.ts";
import { compareText } from "../../src/analysis/text-order.ts";
import {
  defaultFrameMetric,
  EVIDENCE_SCHEMAS,
  type EvidenceTableName,
} from "../../src/domain/evidence-schema.ts";
import { initParquet, parquetToIpcStream } from "../../src/storage/parquet.ts";
import type { CommitEntry } from "../../src/storage/corpus-records.ts";
import { corpusFiles } from "../adapters/corpus-files.ts";
import { tempWorkspace } from "../helpers.ts";

const REFERENCE_SQL = {
  callers: `SELECT parent_frame_id AS frame_id, sum(sample_count) AS sample_count, sum(duration_ns)
              AS duration_ns
            FROM call_edges WHERE child_frame_id = ? AND metric = ? GROUP BY parent_frame_id
            ORDER BY duration_ns DESC, sample_count DESC, frame_id LIMIT ? OFFSET ?`,
  callersTotal:
    `SELECT count(DISTINCT parent_frame_id) AS n FROM call_edges WHERE child_frame_id = ? AND ` +
    `metric = ?`,
  callees: `SELECT child_frame_id AS frame_id, sum(sample_count) AS sample_count, sum(duration_ns)
              AS duration_ns
            FROM call_edges WHERE parent_frame_id = ? AND metric = ? GROUP BY child_frame_id
            ORDER BY duration_ns DESC, sample_count DESC, frame_id LIMIT ? OFFSET ?`,
  calleesTotal:
    `SELECT count(DISTINCT child_frame_id) AS n FROM call_edges WHERE parent_frame_id = ? AND ` +
    `metric = ?`,
  examples: `SELECT stack_id, frame_ids, sum(sample_count) AS sample_count, sum(duration_ns)
               AS duration_ns
             FROM stacks WHERE list_contains(frame_ids, ?) AND metric = ?
             GROUP BY stack_id, frame_ids
             ORDER BY duration_ns DESC, sample_count DESC, stack_id LIMIT ? OFFSET ?`,
  examplesTotal:
    `SELECT count(DISTINCT stack_id) AS n FROM stacks WHERE list_contains(frame_ids, ?) AND ` +
    `metric = ?`,
  metrics: `SELECT DISTINCT metric FROM call_edges ORDER BY metric`,
  // The engine query ordered by its own VARCHAR alias of ts_ns, i.e. by decimal text
  // ("10000000" before "1500000"); the reference orders by time, as the reader does.
  // Track names live in `tracks` (one row per track), joined here as the reader joins them.
  windowPage: `SELECT event_index, name, category, phase, CAST(ts_ns AS VARCHAR) AS ts_ns, dur_ns,
           thread_dur_ns, depth, track_id, process_name, thread_name, args_json, flags
           FROM trace_events LEFT JOIN tracks USING (track_id)
           WHERE ts_ns <= ? AND ts_ns + coalesce(dur_ns, 0) >= ?
           ORDER BY trace_events.ts_ns, event_index LIMIT ? OFFSET ?`,
  windowTotal:
    `SELECT count(*) AS n FROM trace_events WHERE ts_ns <= ? AND ts_ns + coalesce(dur_ns, 0) ` +
    `>= ?`,
  bounds:
    `SELECT CAST(min(ts_ns) AS VARCHAR) AS start_ns, CAST(max(ts_ns + coalesce(dur_ns, 0)) AS ` +
    `VARCHAR) AS end_ns FROM trace_events`,
};

let service: WorkspaceService;
let engine: AnalysisEngine;
let cleanup: () => void;

beforeAll(async () => {
  await initParquet();
  const ws = await tempWorkspace();
  cleanup = ws.cleanup;
  service = await WorkspaceService.open({ workspace: ws.root });
  engine = await AnalysisEngine.open();
}, 60_000);

afterAll(() => {
  engine?.close();
  service?.close();
  cleanup?.();
});

/** Loads the subject's generations of `table` into the reference engine, as the old engine did. */
function loadReference(table: EvidenceTableName, generations: CommitEntry[]): void {
  const snapshot = service.pin();
  const streams = snapshot
    .tableFiles(table, generations)
    .filter((f) => f.rows > 0)
    .map((f) => parquetToIpcStream(snapshot.readFile(f)));
  engine.loadTable(table, streams, EVIDENCE_SCHEMAS[table]);
}

function generationsOf(artifactId: string, table: EvidenceTableName): CommitEntry[] {
  return service
    .pin()
    .generations({ artifactId })
    .filter((g) => g.tables[table] !== undefined);
}

/** A spread of frames: the hottest, some from the middle and the tail of the hotspot list. */
async function framesToTry(artifactId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await service.analyzeHotspots(artifactId, {
      limit: 1000,
      cursor,
      granularity: "line",
    });
    ids.push(...page.items.map((i) => i.frame_id));
    cursor = page.next_cursor;
  } while (cursor);
  const step = Math.max(1, Math.floor(ids.length / 12));
  return ids.filter((_, i) => i < 4 || i % step === 0 || i === ids.length - 1);
}

async function expectSameDrilldown(artifactId: string): Promise<number> {
  loadReference("call_edges", generationsOf(artifactId, "call_edges"));
  loadReference("stacks", generationsOf(artifactId, "call_edges"));
  const metrics = engine.query(REFERENCE_SQL.metrics).map((r) => String(r.metric));
  let compared = 0;
  for (const frameId of await framesToTry(artifactId)) {
    for (const metric of metrics) {
      for (const direction of ["callers", "callees", "examples"] as const) {
        for (const limit of [1000, 2]) {
          let cursor: string | null = null;
          let offset = 0;
          for (let pages = 0; pages < 3; pages++) {
            const mine = await service.stacks(direction, artifactId, frameId, {
              metric: metric as never,
              limit,
              cursor,
              granularity: "line",
            });
            const total = Number(
              engine.query(REFERENCE_SQL[`${direction}Total`], [frameId, metric])[0]!.n,
            );
            const rows = engine.query(REFERENCE_SQL[direction], [frameId, metric, limit, offset]);
            expect(mine.total).toBe(total);
            if (direction === "examples") {
              expect(
                mine.items.map((i: any) => [
                  i.stack_id,
                  i.sample_count,
                  i.duration_ns,
                  i.depth,
                  i.frames.map((f: any) => f.frame_id),
                ]),
              ).toEqual(
                rows.map((r) => [
                  r.stack_id,
                  Number(r.sample_count),
                  Number(r.duration_ns),
                  (r.frame_ids as string[]).length,
                  (r.frame_ids as string[]).slice(-128),
                ]),
              );
            } else {
              expect(
                mine.items.map((i: any) => [i.frame_id, i.sample_count, i.duration_ns]),
              ).toEqual(
                rows.map((r) => [r.frame_id, Number(r.sample_count), Number(r.duration_ns)]),
              );
            }
            compared += 1;
            offset += mine.items.length;
            cursor = mine.next_cursor;
            if (!cursor) break;
          }
        }
      }
    }
  }
  // With no metric given, the metric is chosen from those of the call edges as hotspots choose.
  const first = (await framesToTry(artifactId))[0];
  if (first)
    expect((await service.stacks("callers", artifactId, first, {})).metric).toBe(
      defaultFrameMetric(metrics) ?? "wall_time",
    );
  return compared;
}

async function expectSameWindows(artifactId: string): Promise<number> {
  const generations = generationsOf(artifactId, "trace_events").filter(
    (g) => (g.tables.trace_events ?? 0) > 0,
  );
  loadReference("trace_events", generations);
  loadReference("tracks", generations);
  const bounds = engine.query(REFERENCE_SQL.bounds)[0]!;
  const lo = BigInt(bounds.start_ns as string);
  const hi = BigInt(bounds.end_ns as string);
  const span = hi - lo;
  const windows: [bigint, bigint][] = [
    [lo, hi],
    [lo - 10n, lo],
    [hi, hi + 10n],
    [lo + span / 3n, lo + span / 3n + span / 50n + 1n],
    [lo + span / 2n, lo + span / 2n],
    [hi + 1n, hi + 100n],
    [lo - 100n, lo - 1n],
    [lo + (span * 9n) / 10n, hi],
  ];
  let compared = 0;
  for (const [start, end] of windows) {
    for (const limit of [1000, 7]) {
      let cursor: string | null = null;
      let offset = 0;
      for (let pages = 0; pages < 3; pages++) {
        const mine = await service.traceWindow(artifactId, {
          startNs: start,
          endNs: end,
          limit,
          cursor,
        });
        const total = Number(engine.query(REFERENCE_SQL.windowTotal, [end, start])[0]!.n);
        const rows = engine.query(REFERENCE_SQL.windowPage, [end, start, limit, offset]);
        expect(mine.total).toBe(total);
        expect(mine.trace_bounds).toEqual({
          start_ns: bounds.start_ns as string,
          end_ns: bounds.end_ns as string,
        });
        expect(mine.items).toEqual(
          rows.map((r) => ({
            event_index: Number(r.event_index),
            name: r.name,
            category: r.category ?? null,
            phase: r.phase,
            ts_ns: String(r.ts_ns),
            dur_ns: r.dur_ns === null ? null : Number(r.dur_ns),
            thread_dur_ns: r.thread_dur_ns === null ? null : Number(r.thread_dur_ns),
            depth: Number(r.depth),
            track_id: r.track_id,
            process_name: r.process_name ?? null,
            thread_name: r.thread_name ?? null,
            args_json: typeof r.args_json === "string" ? r.args_json.slice(0, 512) : null,
            flags: r.flags ?? null,
          })) as never,
        );
        const times = mine.items.map((i) => BigInt(i.ts_ns));
        expect(times.every((t, i) => i === 0 || times[i - 1]! <= t)).toBe(true);
        compared += 1;
        offset += mine.items.length;
        cursor = mine.next_cursor;
        if (!cursor) break;
      }
    }
  }
  return compared;
}

const PROFILES = [
  ["cpuprofile", "local-node20.20.2-work.cpuprofile"],
  ["cpuprofile", "speedscope-chrome65-simple.cpuprofile"],
  ["pprof", "google-pprof-report-sample.cpu.pb.gz"],
  ["chrome-trace", "speedscope-fixture-multi-thread-with-samples.json"],
  ["chrome-trace", "local-node20.20.2-trace-events.json"],
  ["perfetto", "perfetto-repo-nested_tracks.perfetto-trace"],
] as const;

describe("drill-down readers agree with the engine queries they replaced", () => {
  for (const [format, name] of PROFILES) {
    const file = corpusFiles(format).find((f) => f.name === name)!;
    test(`${format} ${name}`, async () => {
      const imported = await service.importArtifact({ path: file.path });
      const generations = service.pin().generations({ artifactId: imported.artifact_id });
      let compared = 0;
      if (generations.some((g) => (g.tables.call_edges ?? 0) > 0))
        compared += await expectSameDrilldown(imported.artifact_id);
      if (generations.some((g) => (g.tables.trace_events ?? 0) > 0))
        compared += await expectSameWindows(imported.artifact_id);
      expect(compared).toBeGreaterThan(0);
    }, 120_000);
  }
});

/** A decoded part made in memory, for the window reader alone. */
function memoryPart(arrow: Table): DecodedPart {
  const derived = new Map<string, unknown>();
  return {
    path: `memory:${Math.random()}`,
    generationId: "g",
    table: "trace_events",
    rows: arrow.numRows,
    arrow,
    columns: new Set(arrow.schema.fields.map((f) => f.name)),
    derive<T>(key: string, build: () => { value: T; bytes: number }): T {
      if (!derived.has(key)) derived.set(key, build().value);
      return derived.get(key) as T;
    },
  };
}

describe("trace window reader", () => {
  test("merges parts in (ts, event_index) order and stays exact above 2^53 ns", () => {
    const base = 2n ** 60n;
    const a = tableFromArrays({
      event_index: BigInt64Array.from([0n, 1n, 2n, 3n]),
      ts_ns: BigInt64Array.from([base + 5n, base + 1n, base + 9n, base + 1n]),
      dur_ns: BigInt64Array.from([1n, 100n, 0n, 2n]),
    });
    const b = tableFromArrays({
      event_index: BigInt64Array.from([0n, 1n]),
      ts_ns: BigInt64Array.from([base + 3n, base + 2n ** 54n]),
      dur_ns: BigInt64Array.from([0n, 1n]),
    });
    const parts = [memoryPart(a), memoryPart(b)];
    const keys = (start: bigint, end: bigint, limit = 10, offset = 0) => {
      const page = traceWindowRows(parts, start, end, limit, offset);
      return {
        total: page.total,
        rows: page.rows.map((r) => `${r.part === parts[0] ? "a" : "b"}${r.row}`),
      };
    };
    expect(keys(base, base + 10n)).toEqual({ total: 5, rows: ["a1", "a3", "b0", "a0", "a2"] });
    expect(keys(base + 4n, base + 4n)).toEqual({ total: 1, rows: ["a1"] });
    expect(keys(base + 6n, base + 8n)).toEqual({ total: 2, rows: ["a1", "a0"] });
    expect(keys(base, base + 2n ** 55n, 2, 2)).toEqual({ total: 6, rows: ["b0", "a0"] });
    expect(keys(base + 2n ** 54n + 1n, base + 2n ** 54n + 1n)).toEqual({ total: 1, rows: ["b1"] });
    expect(keys(base + 2n ** 54n + 2n, base + 2n ** 55n)).toEqual({ total: 0, rows: [] });
    expect(traceWindowRows(parts, 0n, 1n, 5, 0).bounds).toEqual({
      start_ns: (base + 1n).toString(),
      end_ns: (base + 2n ** 54n + 1n).toString(),
    });
  });

  test("a slice that ends before it begins overlaps only windows reaching its end", () => {
    const c = tableFromArrays({
      event_index: BigInt64Array.from([0n, 1n, 2n]),
      ts_ns: BigInt64Array.from([10n, 20n, 25n]),
      dur_ns: BigInt64Array.from([0n, -15n, 1n]),
    });
    const part = memoryPart(c);
    const rows = (start: bigint, end: bigint) =>
      traceWindowRows([part], start, end, 10, 0).rows.map((r) => r.row);
    // Matches the engine's `ts_ns <= end AND ts_ns + coalesce(dur_ns, 0) >= start`.
    expect(rows(6n, 30n)).toEqual([0, 2]);
    expect(rows(5n, 30n)).toEqual([0, 1, 2]);
    expect(rows(21n, 30n)).toEqual([2]);
  });

  test("text order is the engine's (code points, not UTF-16 units)", () => {
    const words = ["b", "a", "\u{1F600}", "\uFF5E", "ab", "", "Z"];
    const engineOrder = engine.query(
      `SELECT w FROM (VALUES ${words.map(() => "(?)").join(", ")}) t(w) ORDER BY w`,
      words,
    );
    expect([...words].sort(compareText)).toEqual(engineOrder.map((r) => String(r.w)));
  });
});
