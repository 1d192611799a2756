import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  EVIDENCE_SCHEMAS,
  PROVENANCE_COLUMNS,
  type TableSchema,
} from "../../src/domain/evidence-schema.ts";
import { TableBuffer } from "../../src/domain/table-buffer.ts";
import { AnalysisEngine } from "../../src/analysis/engine.ts";
import {
  initParquet,
  parquetToIpcStream,
  tableBufferToArrow,
  writeParquet,
} from "../../src/storage/parquet.ts";
import { heavyTest } from "../helpers.ts";
import { DictUtf8Builder } from "../../src/adapters/common/column-builders.ts";
import { tableBufferToBatch } from "../../src/adapters/common/table-buffer-batch.ts";
import { columnBatchesToTable } from "../../src/storage/column-batch-arrow.ts";

const ENGINE_MODULE = new URL("../../src/analysis/engine.ts", import.meta.url).pathname;

function provenance(generation: string) {
  return {
    schema_version: 1,
    run_id: "run-1",
    artifact_id: `art-${generation}`,
    evidence_generation_id: generation,
    extractor_name: "test",
    extractor_version: "0.0.1",
  };
}

function ipcOf(
  schema: TableSchema,
  rows: Record<string, unknown>[],
  generation: string,
): Uint8Array {
  const buffer = new TableBuffer(schema);
  for (const row of rows) buffer.append(row as Parameters<TableBuffer["append"]>[0]);
  return parquetToIpcStream(writeParquet(tableBufferToArrow(buffer, provenance(generation))));
}

const BIG = 2n ** 53n + 1n;
const stackRow = (
  stack: string,
  metric: string,
  samples: number,
  first: bigint | null,
  frames: string[],
) => ({
  stack_id: stack,
  metric,
  frame_ids: frames,
  leaf_frame_id: frames.at(-1) ?? "",
  sample_count: samples,
  duration_ns: samples * 1000,
  first_ts_ns: first,
  track_id: null,
});

let engine: AnalysisEngine;
let startMs = 0;

beforeAll(async () => {
  await initParquet();
  const t = performance.now();
  engine = await AnalysisEngine.open();
  startMs = performance.now() - t;
  console.log(`AnalysisEngine.open: ${startMs.toFixed(0)} ms`);
}, 60_000);

afterAll(() => engine?.close());

/**
 * One tracks part whose thread_name is a dictionary column (as trace_events' repeated strings
 * are written), over two batches with different dictionaries.
 */
function dictionaryIpc(generation: string): Uint8Array {
  const batches = [0, 1].map((b) => {
    const buffer = new TableBuffer(EVIDENCE_SCHEMAS.tracks);
    const names = new DictUtf8Builder(3, {
      bytes: (key) => new TextEncoder().encode(["main", "io", "é"][key]!),
    });
    for (let i = 0; i < 3; i++) {
      buffer.append({
        track_id: `${generation}-${b}-${i}`,
        pid: "1",
        tid: null,
        process_name: null,
        thread_name: null,
      });
      if (b === 1 && i === 2) names.setNull(i);
      else names.set(i, (i + b) % 3);
    }
    const batch = tableBufferToBatch(buffer);
    return { ...batch, columns: { ...batch.columns, thread_name: names.build(3) } };
  });
  return parquetToIpcStream(
    writeParquet(columnBatchesToTable("tracks", provenance(generation), batches)),
  );
}

describe("AnalysisEngine", () => {
  test("a table of a dictionary-column part and a plain one reads as strings", () => {
    const plain = ipcOf(
      EVIDENCE_SCHEMAS.tracks,
      [{ track_id: "old-0", pid: "1", tid: "2", process_name: null, thread_name: "main" }],
      "g0",
    );
    const expected = [
      { track_id: "g1-0-0", thread_name: "main" },
      { track_id: "g1-0-1", thread_name: "io" },
      { track_id: "g1-0-2", thread_name: "é" },
      { track_id: "g1-1-0", thread_name: "io" },
      { track_id: "g1-1-1", thread_name: "é" },
      { track_id: "g1-1-2", thread_name: null },
      { track_id: "old-0", thread_name: "main" },
    ];
    for (const [streams, shape] of [
      [[dictionaryIpc("g1"), plain], undefined],
      [[plain, dictionaryIpc("g1")], undefined],
      [[dictionaryIpc("g1"), plain], EVIDENCE_SCHEMAS.tracks],
    ] as const) {
      engine.loadTable("tracks", streams, shape);
      expect(
        engine.query("SELECT track_id, thread_name FROM tracks ORDER BY track_id", []),
      ).toEqual(expected);
      expect(
        engine.query(
          "SELECT thread_name, count(*) AS n FROM tracks GROUP BY thread_name ORDER BY thread_name",
          [],
        ),
      ).toEqual([
        { thread_name: "io", n: 2 },
        { thread_name: "main", n: 2 },
        { thread_name: "é", n: 2 },
        { thread_name: null, n: 1 },
      ]);
    }
  });

  test("loads two IPC streams into one table and groups with bound parameters", () => {
    const a = ipcOf(
      EVIDENCE_SCHEMAS.stacks,
      [
        stackRow("s1", "cpu_time", 3, BIG, ["f0", "f1"]),
        stackRow("s2", "cpu_time", 2, null, ["f0"]),
      ],
      "g1",
    );
    const b = ipcOf(
      EVIDENCE_SCHEMAS.stacks,
      [stackRow("s1", "cpu_time", 4, 5n, ["f0", "f1"]), stackRow("s3", "wall_time", 9, null, [])],
      "g2",
    );
    engine.loadTable("stacks", [a, b], EVIDENCE_SCHEMAS.stacks);
    const rows = engine.query(
      `SELECT stack_id, frame_ids, sum(sample_count) AS samples, count(*) AS n, max(first_ts_ns)
         AS first_ts
       FROM stacks WHERE metric = ? AND sample_count >= ? GROUP BY stack_id, frame_ids
       ORDER BY stack_id`,
      ["cpu_time", 2],
    );
    expect(rows).toEqual([
      // SUM(BIGINT) is HUGEINT (Arrow Decimal128) in DuckDB; it still comes back exact.
      { stack_id: "s1", frame_ids: ["f0", "f1"], samples: 7, n: 2, first_ts: BIG.toString() },
      { stack_id: "s2", frame_ids: ["f0"], samples: 2, n: 1, first_ts: null },
    ]);
    const generations = engine.query(
      "SELECT DISTINCT evidence_generation_id AS g FROM stacks ORDER BY g",
      [],
    );
    expect(generations).toEqual([{ g: "g1" }, { g: "g2" }]);
  });

  test("bigint parameters above 2^53 match exactly", () => {
    engine.loadTable("stacks", [
      ipcOf(
        EVIDENCE_SCHEMAS.stacks,
        [stackRow("s1", "cpu_time", 1, BIG, ["f"]), stackRow("s2", "cpu_time", 1, BIG - 1n, ["f"])],
        "g1",
      ),
    ]);
    expect(engine.query("SELECT stack_id FROM stacks WHERE first_ts_ns = ?", [BIG])).toEqual([
      { stack_id: "s1" },
    ]);
    expect(engine.query("SELECT ?::BIGINT AS v, ? AS small", [2n ** 62n, 5n])).toEqual([
      { v: (2n ** 62n).toString(), small: 5 },
    ]);
  });

  test("an absent table is created empty from its schema", () => {
    engine.loadTable("trace_events", [], EVIDENCE_SCHEMAS.trace_events);
    expect(
      engine.query(
        "SELECT count(*) AS n, sum(dur_ns) AS total FROM trace_events WHERE track_id = ?",
        ["t"],
      ),
    ).toEqual([{ n: 0, total: null }]);
    const columns = engine.query(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? " +
        "ORDER BY ordinal_position",
      ["trace_events"],
    );
    expect(columns.map((c) => c.column_name)).toEqual(
      [...PROVENANCE_COLUMNS, ...EVIDENCE_SCHEMAS.trace_events.columns].map((c) => c.name),
    );
    expect(columns.find((c) => c.column_name === "ts_ns")?.data_type).toBe("BIGINT");
    expect(() => engine.loadTable("nothing", [])).toThrow(/no streams and no shape/);
  });

  test("a zero-row Parquet file loads as an empty typed table", () => {
    engine.loadTable("frames", [ipcOf(EVIDENCE_SCHEMAS.frames, [], "g1")]);
    expect(engine.query("SELECT count(*) AS n FROM frames", [])).toEqual([{ n: 0 }]);
    const types = engine.query(
      "SELECT data_type FROM information_schema.columns WHERE table_name = 'frames' AND " +
        "column_name = 'line'",
      [],
    );
    expect(types).toEqual([{ data_type: "INTEGER" }]);
  });

  test("files missing a newer column union by name; the shape supplies the column as NULL", () => {
    const older: TableSchema = {
      ...EVIDENCE_SCHEMAS.call_edges,
      columns: EVIDENCE_SCHEMAS.call_edges.columns.filter((c) => c.name !== "duration_ns"),
    };
    const edge = {
      metric: "cpu_time",
      parent_frame_id: "p",
      child_frame_id: "c",
      sample_count: 1,
      duration_ns: 10,
    };
    const { duration_ns: _drop, ...oldEdge } = edge;
    engine.loadTable(
      "call_edges",
      [ipcOf(older, [oldEdge], "old"), ipcOf(EVIDENCE_SCHEMAS.call_edges, [edge], "new")],
      EVIDENCE_SCHEMAS.call_edges,
    );
    expect(
      engine.query(
        "SELECT evidence_generation_id AS g, duration_ns FROM call_edges ORDER BY g",
        [],
      ),
    ).toEqual([
      { g: "new", duration_ns: 10 },
      { g: "old", duration_ns: null },
    ]);
    engine.loadTable("call_edges", [ipcOf(older, [oldEdge], "old")], EVIDENCE_SCHEMAS.call_edges);
    expect(engine.query("SELECT duration_ns FROM call_edges", [])).toEqual([{ duration_ns: null }]);
  });

  test("reordered and newer (extra-column) files union by name, without a shape too", () => {
    const base = EVIDENCE_SCHEMAS.call_edges;
    const reordered: TableSchema = { ...base, columns: [...base.columns].reverse() };
    const newer: TableSchema = {
      ...base,
      columns: [...base.columns, { name: "note", type: "utf8", nullable: true }],
    };
    const edge = {
      metric: "cpu_time",
      parent_frame_id: "p",
      child_frame_id: "c",
      sample_count: 1,
      duration_ns: 10,
    };
    const streams = [
      ipcOf(base, [edge], "a"),
      ipcOf(reordered, [{ ...edge, sample_count: 2 }], "b"),
      ipcOf(newer, [{ ...edge, sample_count: 3, note: "n" }], "c"),
    ];
    for (const shape of [base, undefined]) {
      engine.loadTable("call_edges", streams, shape);
      expect(
        engine.query(
          "SELECT evidence_generation_id AS g, parent_frame_id AS p, sample_count AS s, note " +
            "FROM call_edges ORDER BY g",
          [],
        ),
      ).toEqual([
        { g: "a", p: "p", s: 1, note: null },
        { g: "b", p: "p", s: 2, note: null },
        { g: "c", p: "p", s: 3, note: "n" },
      ]);
    }
  });

  test("a failed load keeps the previous table", () => {
    engine.loadTable("frames", [ipcOf(EVIDENCE_SCHEMAS.frames, [], "g1")]);
    expect(() =>
      engine.loadTable("frames", [new Uint8Array([1, 2, 3])], EVIDENCE_SCHEMAS.frames),
    ).toThrow();
    expect(engine.query("SELECT count(*) AS n FROM frames", [])).toEqual([{ n: 0 }]);
    expect(
      engine.query(
        "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name LIKE '__flameox%'",
        [],
      ),
    ).toEqual([{ n: 0 }]);
  });

  test("query converts values to JSON-safe JS", () => {
    const rows = engine.query(
      "SELECT 1.5::DOUBLE AS d, 'inf'::DOUBLE AS inf, true AS b, NULL AS z, [1, 2]::BIGINT[] " +
        "AS l, 12.25::DECIMAL(10,2) AS dec, -(2::HUGEINT ** 70)::HUGEINT AS neg",
      [],
    );
    expect(rows).toEqual([
      {
        d: 1.5,
        inf: "Infinity",
        b: true,
        z: null,
        l: [1, 2],
        dec: 12.25,
        neg: (-(2n ** 70n)).toString(),
      },
    ]);
    expect(() => JSON.stringify(rows)).not.toThrow();
  });

  test("query refuses non-read statements, bad parameters and multiple statements", () => {
    expect(() => engine.query("DROP TABLE stacks", [])).toThrow(/read statements/);
    expect(() => engine.query("/* x */ CREATE TABLE t AS SELECT 1", [])).toThrow(/refusing CREATE/);
    expect(() => engine.query("SELECT ?", [undefined])).toThrow(/parameter 1/);
    expect(() => engine.query("SELECT ?", [{}])).toThrow(/parameter 1/);
    expect(() => engine.query("SELECT 1; SELECT 2", [])).toThrow(/multiple statements/);
    expect(engine.query("-- comment\n(SELECT 1 AS one)", [])).toEqual([{ one: 1 }]);
  });

  test("the configuration is locked: no file access, no extensions, no settings changes", () => {
    expect(() => engine.execute("SET enable_external_access=true")).toThrow(/locked/);
    expect(() => engine.execute("SET autoload_known_extensions=true")).toThrow(/locked/);
    expect(() => engine.query("SELECT * FROM read_csv('/etc/passwd')", [])).toThrow(
      /disabled by configuration/,
    );
    expect(() => engine.execute("COPY (SELECT 1) TO '/tmp/flameox-engine-test.csv'")).toThrow(
      /disabled by configuration/,
    );
    expect(() => engine.execute("ATTACH '/tmp/flameox-engine-test.db'")).toThrow(
      /disabled by configuration/,
    );
    expect(() => engine.execute("LOAD httpfs")).toThrow(/Loading external extensions is disabled/);
    expect(
      engine.query("SELECT extension_name FROM duckdb_extensions() WHERE loaded ORDER BY 1", []),
    ).toEqual([{ extension_name: "core_functions" }]);
  });
});

describe("AnalysisEngine network refusal", () => {
  // Runs in a child process with a hard kill: a statement that tried to download an
  // extension would block the (synchronous) engine, and a hang here must fail, not stall.
  test("read_parquet over https and INSTALL httpfs fail fast instead of fetching", async () => {
    const script = `
      import { AnalysisEngine } from ${JSON.stringify(ENGINE_MODULE)};
      const engine = await AnalysisEngine.open();
      const out = {};
      const attempt = (label, run) => {
        const t = performance.now();
        try { run(); out[label] = { ok: true, ms: performance.now() - t }; }
        catch (e) { out[label] = { ok: false, ms: performance.now() - t, error: String(e).slice(0, \
160) }; }
      };
      attempt("read_parquet", () => engine.query("SELECT * FROM \
read_parquet('https://example.invalid/x.parquet')", []));
      attempt("install", () => engine.query("INSTALL httpfs", []));
      attempt("load", () => engine.execute("LOAD httpfs"));
      attempt("force_install", () => engine.execute("FORCE INSTALL httpfs FROM \
'https://example.invalid'"));
      attempt("load_after_install", () => engine.execute("LOAD httpfs"));
      console.log(JSON.stringify(out));
      engine.close();
    `;
    const child = Bun.spawn([process.execPath, "--eval", script], {
      stdout: "pipe",
      stderr: "pipe",
      timeout: 45_000,
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect({ code, stderr: code === 0 ? "" : stderr.slice(-500) }).toEqual({ code: 0, stderr: "" });
    const results = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<
      string,
      { ok: boolean; ms: number; error?: string }
    >;
    console.log("network refusal:", JSON.stringify(results));
    expect(results.read_parquet).toMatchObject({ ok: false });
    expect(results.read_parquet!.error).toMatch(/read_parquet/);
    expect(results.install).toMatchObject({ ok: false });
    expect(results.load).toMatchObject({ ok: false });
    expect(results.load_after_install).toMatchObject({ ok: false });
    // INSTALL itself is a no-op in DuckDB-WASM (nothing is downloaded at INSTALL time); the
    // guard above keeps it out of query(), and LOAD is what is refused.
    for (const [label, r] of Object.entries(results))
      expect({ label, fast: r.ms < 5000 }).toEqual({ label, fast: true });
  }, 60_000);
});

describe("AnalysisEngine at scale", () => {
  // 2 x 1M generated rows: a size case, so the heavy lane's.
  heavyTest(
    "1M rows: decode + load + query timings (printed, not asserted)",
    () => {
      const n = 1_000_000;
      const buffer = new TableBuffer(EVIDENCE_SCHEMAS.call_edges);
      const idx = Array.from({ length: n }, (_, i) => i);
      buffer.columns.set(
        "metric",
        idx.map((i) => (i % 2 ? "cpu_time" : "wall_time")),
      );
      buffer.columns.set(
        "parent_frame_id",
        idx.map((i) => `p${i % 1000}`),
      );
      buffer.columns.set(
        "child_frame_id",
        idx.map((i) => `c${i % 5000}`),
      );
      buffer.columns.set(
        "sample_count",
        idx.map((i) => i % 10),
      );
      buffer.columns.set(
        "duration_ns",
        idx.map((i) => i * 1000),
      );
      (buffer as unknown as { rows: number }).rows = n;
      const half = writeParquet(tableBufferToArrow(buffer, provenance("g1")));

      let t = performance.now();
      const streams = [parquetToIpcStream(half), parquetToIpcStream(half)];
      const decodeMs = performance.now() - t;
      t = performance.now();
      engine.loadTable("call_edges", streams, EVIDENCE_SCHEMAS.call_edges);
      const loadMs = performance.now() - t;
      t = performance.now();
      const top = engine.query(
        "SELECT parent_frame_id, sum(sample_count) AS s, sum(duration_ns) AS d FROM " +
          "call_edges WHERE metric = ? GROUP BY 1 ORDER BY d DESC LIMIT ?",
        ["cpu_time", 5],
      );
      const queryMs = performance.now() - t;
      console.log(
        `2 x 1M call_edges: decode ${decodeMs.toFixed(0)} ms, loadTable ${loadMs.toFixed(0)} ` +
          `ms, group-by query ${queryMs.toFixed(0)} ms`,
      );
      expect(engine.query("SELECT count(*) AS n FROM call_edges", [])).toEqual([{ n: 2 * n }]);
      expect(top).toHaveLength(5);
    },
    120_000,
  );
});

// Last in the file: it closes the shared engine (an engine costs seconds to start, so the
// file opens one for every case; afterAll's close is then a second close, also allowed).
describe("AnalysisEngine close", () => {
  test("close makes further use an error", () => {
    engine.close();
    engine.close();
    expect(() => engine.query("SELECT 1", [])).toThrow(/closed/);
    expect(() => engine.loadTable("t", [])).toThrow(/closed/);
  });
});
