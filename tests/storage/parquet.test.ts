import { beforeAll, describe, expect, test } from "bun:test";
import { DataType, Type, tableFromIPC, type Table } from "apache-arrow";
import {
  EVIDENCE_SCHEMAS,
  PROVENANCE_COLUMNS,
  type TableSchema,
} from "../../src/domain/evidence-schema.ts";
import { TableBuffer } from "../../src/domain/table-buffer.ts";
import {
  initParquet,
  parquetRowCount,
  parquetToIpcStream,
  readParquet,
  tableBufferToArrow,
  writeParquet,
} from "../../src/storage/parquet.ts";
import { heavyTest } from "../helpers.ts";

const PROVENANCE = {
  schema_version: 1,
  run_id: "run-1",
  artifact_id: "art-1",
  evidence_generation_id: "gen-1",
  extractor_name: "test",
  extractor_version: "0.0.1",
};

/** Every column type, each both required and nullable. */
const ALL_TYPES: TableSchema = {
  name: "frames",
  schemaId: "flameox.test.v1.0",
  columns: [
    { name: "s", type: "utf8", nullable: false },
    { name: "s_n", type: "utf8", nullable: true },
    { name: "i", type: "int32", nullable: false },
    { name: "i_n", type: "int32", nullable: true },
    { name: "big", type: "int64", nullable: false },
    { name: "big_n", type: "int64", nullable: true },
    { name: "f", type: "float64", nullable: false },
    { name: "f_n", type: "float64", nullable: true },
    { name: "b", type: "bool", nullable: false },
    { name: "b_n", type: "bool", nullable: true },
    { name: "l", type: "list_utf8", nullable: false },
    { name: "l_n", type: "list_utf8", nullable: true },
  ],
};

const BEYOND_2_53 = 2n ** 53n + 1n;
const ROWS = [
  {
    s: "plain",
    s_n: null,
    i: -5,
    i_n: 7,
    big: BEYOND_2_53,
    big_n: null,
    f: 1.5,
    f_n: null,
    b: true,
    b_n: false,
    l: ["a", "b"],
    l_n: null,
  },
  {
    s: "ünïcødé 🔥",
    s_n: "x",
    i: 2147483647,
    i_n: null,
    big: -(2n ** 63n),
    big_n: 42,
    f: -0.25,
    f_n: 3,
    b: false,
    b_n: null,
    l: [],
    l_n: ["z"],
  },
  {
    s: "",
    s_n: "",
    i: 0,
    i_n: -2147483648,
    big: 2n ** 63n - 1n,
    big_n: 9007199254740993n,
    f: 1e300,
    f_n: 0,
    b: true,
    b_n: true,
    l: ["", "é"],
    l_n: [],
  },
];

function fill(schema: TableSchema, rows: Record<string, unknown>[]): TableBuffer {
  const buffer = new TableBuffer(schema);
  for (const row of rows) buffer.append(row as Parameters<TableBuffer["append"]>[0]);
  return buffer;
}

function column(table: Table, name: string): unknown[] {
  const vector = table.getChild(name);
  if (!vector) throw new Error(`no column ${name}`);
  return Array.from({ length: table.numRows }, (_, i) => {
    const v = vector.get(i);
    return v !== null && typeof v === "object" && Symbol.iterator in v
      ? Array.from(v as Iterable<unknown>)
      : v;
  });
}

beforeAll(async () => {
  await initParquet();
});

describe("parquet round trip", () => {
  test("initParquet is idempotent", async () => {
    await initParquet();
    await initParquet();
  });

  test("every column type with nulls comes back exactly", () => {
    const bytes = writeParquet(tableBufferToArrow(fill(ALL_TYPES, ROWS), PROVENANCE));
    const table = readParquet(bytes);
    expect(table.numRows).toBe(ROWS.length);
    for (const col of ALL_TYPES.columns) {
      const expected = ROWS.map((r) => {
        const v = (r as Record<string, unknown>)[col.name];
        // int64 always reads back as bigint.
        return col.type === "int64" && typeof v === "number" ? BigInt(v) : v;
      });
      expect({ name: col.name, values: column(table, col.name) }).toEqual({
        name: col.name,
        values: expected,
      });
    }
  });

  test("int64 values above 2^53 are exact", () => {
    const bytes = writeParquet(tableBufferToArrow(fill(ALL_TYPES, ROWS), PROVENANCE));
    const big = readParquet(bytes, ["big"]).getChild("big")!;
    expect(big.get(0)).toBe(BEYOND_2_53);
    expect(big.get(2)).toBe(2n ** 63n - 1n);
    expect(big.get(1)).toBe(-(2n ** 63n));
  });

  test("int64 cells given as numbers (negative, large) are exact", () => {
    const values = [
      0,
      -1,
      1,
      -(2 ** 40) - 7,
      2 ** 32,
      -(2 ** 32),
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
    ];
    const rows = values.map((v) => ({ ...ROWS[0]!, big: v }));
    const big = readParquet(writeParquet(tableBufferToArrow(fill(ALL_TYPES, rows), PROVENANCE)), [
      "big",
    ]).getChild("big")!;
    expect(Array.from({ length: values.length }, (_, i) => big.get(i))).toEqual(
      values.map((v) => BigInt(v)),
    );
  });

  test("schema: provenance first, exact Arrow types, nullability, metadata", () => {
    const table = readParquet(writeParquet(tableBufferToArrow(fill(ALL_TYPES, ROWS), PROVENANCE)));
    const fields = table.schema.fields;
    expect(fields.map((f) => f.name)).toEqual(
      [...PROVENANCE_COLUMNS, ...ALL_TYPES.columns].map((c) => c.name),
    );
    const byName = new Map(fields.map((f) => [f.name, f]));
    const expectType = (name: string, check: (t: DataType) => boolean) =>
      expect({ name, ok: check(byName.get(name)!.type) }).toEqual({ name, ok: true });
    expectType("run_id", DataType.isUtf8);
    expectType("s", (t) => t.typeId === Type.Utf8);
    expectType("schema_version", (t) => DataType.isInt(t) && t.bitWidth === 32 && t.isSigned);
    expectType("i", (t) => DataType.isInt(t) && t.bitWidth === 32);
    expectType("big", (t) => DataType.isInt(t) && t.bitWidth === 64 && t.isSigned);
    expectType("f", (t) => DataType.isFloat(t) && t.precision === 2);
    expectType("b", DataType.isBool);
    expectType("l", (t) => DataType.isList(t) && t.children[0]!.type.typeId === Type.Utf8);
    expect(byName.get("s")!.nullable).toBe(false);
    expect(byName.get("s_n")!.nullable).toBe(true);
    expect(table.schema.metadata.get("flameox.schema_id")).toBe("flameox.test.v1.0");
  });

  test("provenance columns hold the constant values", () => {
    const table = readParquet(writeParquet(tableBufferToArrow(fill(ALL_TYPES, ROWS), PROVENANCE)));
    for (const [name, value] of Object.entries(PROVENANCE)) {
      expect(column(table, name)).toEqual(ROWS.map(() => value));
    }
  });

  test("an empty buffer still writes the full typed schema", () => {
    const bytes = writeParquet(
      tableBufferToArrow(new TableBuffer(EVIDENCE_SCHEMAS.stacks), PROVENANCE),
    );
    expect(parquetRowCount(bytes)).toBe(0);
    const table = readParquet(bytes);
    expect(table.numRows).toBe(0);
    expect(table.schema.fields.map((f) => f.name)).toEqual(
      [...PROVENANCE_COLUMNS, ...EVIDENCE_SCHEMAS.stacks.columns].map((c) => c.name),
    );
    expect(DataType.isList(table.schema.fields.find((f) => f.name === "frame_ids")!.type)).toBe(
      true,
    );
    expect(parquetToIpcStream(bytes).byteLength).toBeGreaterThan(0);
  });

  test("column projection reads only the named columns", () => {
    const bytes = writeParquet(tableBufferToArrow(fill(ALL_TYPES, ROWS), PROVENANCE));
    const table = readParquet(bytes, ["l", "s"]);
    expect(table.schema.fields.map((f) => f.name)).toEqual(["l", "s"]);
    expect(column(table, "s")).toEqual(ROWS.map((r) => r.s));
    const ipcTable = tableFromIPC(parquetToIpcStream(bytes, ["big"]));
    expect(ipcTable.schema.fields.map((f) => f.name)).toEqual(["big"]);
    // A column the file lacks (written before it existed) is left out; rows are kept.
    const older = readParquet(bytes, ["s", "added_later"]);
    expect(older.schema.fields.map((f) => f.name)).toEqual(["s"]);
    expect(readParquet(bytes, ["added_later"]).numRows).toBe(ROWS.length);
  });

  test("parquetRowCount reads the footer of a multi-batch file", () => {
    const n = 300_000;
    const buffer = new TableBuffer(EVIDENCE_SCHEMAS.call_edges);
    const cells = (name: string) => buffer.columns.get(name)!;
    for (let i = 0; i < n; i++) {
      cells("metric").push("cpu_time");
      cells("parent_frame_id").push(`p${i % 97}`);
      cells("child_frame_id").push(`c${i}`);
      cells("sample_count").push(i);
      cells("duration_ns").push(BigInt(i) * 1000n);
    }
    // Filling the column arrays directly bypasses append(); keep the row count in step.
    (buffer as unknown as { rows: number }).rows = n;
    const bytes = writeParquet(tableBufferToArrow(buffer, PROVENANCE));
    expect(parquetRowCount(bytes)).toBe(n);
    const table = readParquet(bytes, ["child_frame_id", "duration_ns"]);
    expect(table.numRows).toBe(n);
    expect(table.getChild("child_frame_id")!.get(n - 1)).toBe(`c${n - 1}`);
    expect(table.getChild("duration_ns")!.get(n - 1)).toBe(BigInt(n - 1) * 1000n);
  }, 30_000);

  test("parquetRowCount rejects non-Parquet bytes", () => {
    expect(() => parquetRowCount(new TextEncoder().encode("not parquet at all"))).toThrow(
      /Parquet/,
    );
  });

  test("bad provenance and out-of-range int32 are refused", () => {
    const buffer = fill(ALL_TYPES, ROWS);
    expect(() => tableBufferToArrow(buffer, { ...PROVENANCE, run_id: 5 })).toThrow(/run_id/);
    const { artifact_id: _omit, ...missing } = PROVENANCE;
    expect(() => tableBufferToArrow(buffer, missing)).toThrow(/artifact_id/);
    expect(() => tableBufferToArrow(buffer, { ...PROVENANCE, extra: "x" })).toThrow(/extra/);
    const wide = fill(ALL_TYPES, [{ ...ROWS[0]!, i: 2 ** 31 }]);
    expect(() => tableBufferToArrow(wide, PROVENANCE)).toThrow(/int32/);
    const huge = fill(ALL_TYPES, [{ ...ROWS[0]!, big: 1e20 }]);
    expect(() => tableBufferToArrow(huge, PROVENANCE)).toThrow(/int64/);
  });
});

describe("parquet at scale", () => {
  // 1M generated rows, timed: a size case, so the heavy lane's.
  heavyTest(
    "1M trace_events rows: write and read timings (printed, not asserted)",
    () => {
      const n = 1_000_000;
      const schema = EVIDENCE_SCHEMAS.trace_events;
      const buffer = new TableBuffer(schema);
      const set = (name: string, values: unknown[]) => {
        // Replacing the column arrays directly skips append()'s per-cell checks (test setup only).
        buffer.columns.set(name, values as never[]);
      };
      const idx = Array.from({ length: n }, (_, i) => i);
      set(
        "event_index",
        idx.map((i) => BigInt(i)),
      );
      set(
        "track_id",
        idx.map((i) => `t${i % 8}`),
      );
      set(
        "name",
        idx.map((i) => `fn_${i % 5000}`),
      );
      set(
        "category",
        idx.map(() => null),
      );
      set(
        "phase",
        idx.map(() => "X"),
      );
      set(
        "ts_ns",
        idx.map((i) => 1_700_000_000_000_000_000n + BigInt(i) * 1000n),
      );
      set(
        "dur_ns",
        idx.map((i) => i % 1000),
      );
      set(
        "depth",
        idx.map((i) => i % 32),
      );
      set(
        "args_json",
        idx.map(() => null),
      );
      set(
        "flags",
        idx.map(() => null),
      );
      (buffer as unknown as { rows: number }).rows = n;

      let t = performance.now();
      const arrowTable = tableBufferToArrow(buffer, PROVENANCE);
      const toArrowMs = performance.now() - t;
      t = performance.now();
      const bytes = writeParquet(arrowTable);
      const writeMs = performance.now() - t;
      t = performance.now();
      const ipc = parquetToIpcStream(bytes);
      const decodeMs = performance.now() - t;
      t = performance.now();
      const back = readParquet(bytes);
      const readMs = performance.now() - t;
      t = performance.now();
      const rows = parquetRowCount(bytes);
      const countMs = performance.now() - t;
      console.log(
        `1M trace_events: toArrow ${toArrowMs.toFixed(0)} ms, ` +
          `writeParquet ${writeMs.toFixed(0)} ms ` +
          `(${(bytes.byteLength / 2 ** 20).toFixed(1)} MiB), ` +
          `parquetToIpcStream ${decodeMs.toFixed(0)} ms ` +
          `(${(ipc.byteLength / 2 ** 20).toFixed(0)} MiB IPC), ` +
          `readParquet ${readMs.toFixed(0)} ms, rowCount ${countMs.toFixed(2)} ms`,
      );
      expect(rows).toBe(n);
      expect(back.numRows).toBe(n);
      expect(back.getChild("ts_ns")!.get(n - 1)).toBe(
        1_700_000_000_000_000_000n + BigInt(n - 1) * 1000n,
      );
      expect(back.getChild("category")!.get(3)).toBeNull();
    },
    60_000,
  );
});
