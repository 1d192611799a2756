/**
 * The lean stored layout: provenance once per file (schema metadata) and track columns
 * once per track (`tracks`), read back as the columns readers always saw; files of the
 * earlier layout, which carry those columns on every row, read exactly as before.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import {
  Field,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  makeData,
  tableFromIPC,
} from "apache-arrow";
import { ParquetFile } from "parquet-wasm/esm";
import { EVIDENCE_SCHEMAS, PROVENANCE_COLUMNS } from "../../src/domain/evidence-schema.ts";
import { TableBuffer } from "../../src/domain/table-buffer.ts";
import { arrowField, columnData, constantData } from "../../src/storage/parquet-columns.ts";
import {
  initParquet,
  parquetToIpcStream,
  readParquet,
  readParquetColumns,
  tableBufferToArrow,
  writeParquet,
} from "../../src/storage/parquet.ts";
import {
  asksForTrackColumns,
  trackRowsOf,
  withTrackColumns,
} from "../../src/storage/track-columns.ts";

const PROVENANCE = {
  schema_version: 1,
  run_id: "run-7",
  artifact_id: "sha256:abc",
  evidence_generation_id: "gen-7",
  extractor_name: "chrome-trace",
  extractor_version: "2.0.0",
};

function trackRows(n: number): TableBuffer {
  const buffer = new TableBuffer(EVIDENCE_SCHEMAS.tracks);
  for (let i = 0; i < n; i++)
    buffer.append({
      track_id: `1:${i}`,
      pid: "1",
      tid: String(i),
      process_name: "app",
      thread_name: i % 2 ? `w${i}` : null,
    });
  return buffer;
}

async function physicalColumns(bytes: Uint8Array): Promise<string[]> {
  const file = await ParquetFile.fromFile(new Blob([bytes]));
  try {
    const schema = file.schema();
    const names = tableFromIPC(schema.intoIPCStream()).schema.fields.map((f) => f.name);
    return names;
  } finally {
    file.free();
  }
}

beforeAll(async () => {
  await initParquet();
});

describe("provenance stored once per file", () => {
  test("the file has no provenance columns; every read gives them back as constants", async () => {
    const bytes = writeParquet(tableBufferToArrow(trackRows(5), PROVENANCE));
    expect(await physicalColumns(bytes)).toEqual(
      EVIDENCE_SCHEMAS.tracks.columns.map((c) => c.name),
    );

    const whole = readParquet(bytes);
    expect(whole.schema.fields.map((f) => f.name)).toEqual(
      [...PROVENANCE_COLUMNS, ...EVIDENCE_SCHEMAS.tracks.columns].map((c) => c.name),
    );
    expect(whole.schema.fields.slice(0, PROVENANCE_COLUMNS.length).every((f) => !f.nullable)).toBe(
      true,
    );
    for (const [name, value] of Object.entries(PROVENANCE)) {
      expect(whole.getChild(name)!.toArray().length).toBe(5);
      for (let i = 0; i < 5; i++) expect(whole.getChild(name)!.get(i)).toBe(value);
    }
    const projected = await readParquetColumns(bytes, [
      "tid",
      "run_id",
      "no_such_column",
      "extractor_version",
    ]);
    expect(projected.schema.fields.map((f) => f.name)).toEqual([
      "tid",
      "run_id",
      "extractor_version",
    ]);
    expect([...projected.getChild("run_id")!]).toEqual(Array(5).fill("run-7"));
    expect([...projected.getChild("tid")!]).toEqual(["0", "1", "2", "3", "4"]);
    // Only provenance asked for: the rows are still all there.
    expect(
      (await readParquetColumns(bytes, ["schema_version"])).getChild("schema_version")!.toArray(),
    ).toEqual(new Int32Array(5).fill(1));
    const ipc = tableFromIPC(parquetToIpcStream(bytes, ["artifact_id", "track_id"]));
    expect(ipc.schema.fields.map((f) => f.name)).toEqual(["artifact_id", "track_id"]);
    expect(ipc.getChild("artifact_id")!.get(4)).toBe("sha256:abc");
  });

  test(
    "a file of the earlier layout, provenance on every row and none in its metadata, reads as " +
      "stored",
    async () => {
      const own = EVIDENCE_SCHEMAS.tracks.columns;
      const fields = [...PROVENANCE_COLUMNS, ...own].map(arrowField);
      const schema = new Schema(fields);
      const rows = [{ track_id: "a", pid: "9", tid: null, process_name: null, thread_name: "t" }];
      const children = [
        ...PROVENANCE_COLUMNS.map((col) =>
          constantData(
            col,
            col.name === "run_id"
              ? "run-old"
              : (PROVENANCE as Record<string, string | number>)[col.name]!,
            1,
          ),
        ),
        ...own.map((col) =>
          columnData(
            col,
            rows.map((r) => (r as Record<string, string | null>)[col.name]!),
            0,
            1,
          ),
        ),
      ];
      const bytes = writeParquet(
        new Table(schema, [
          new RecordBatch(
            schema,
            makeData({ type: new Struct(fields), length: 1, nullCount: 0, children }),
          ),
        ]),
      );
      const back = readParquet(bytes);
      expect(back.schema.fields.map((f) => f.name)).toEqual(fields.map((f) => f.name));
      expect(back.getChild("run_id")!.get(0)).toBe("run-old");
      expect((await readParquetColumns(bytes, ["run_id", "pid"])).getChild("run_id")!.get(0)).toBe(
        "run-old",
      );
    },
  );

  test("an empty part keeps its typed schema, provenance included", () => {
    const back = readParquet(
      writeParquet(tableBufferToArrow(new TableBuffer(EVIDENCE_SCHEMAS.stacks), PROVENANCE)),
    );
    expect(back.numRows).toBe(0);
    expect(back.schema.fields.map((f) => f.name)).toEqual(
      [...PROVENANCE_COLUMNS, ...EVIDENCE_SCHEMAS.stacks.columns].map((c) => c.name),
    );
    expect(
      tableFromIPC(
        parquetToIpcStream(
          writeParquet(tableBufferToArrow(new TableBuffer(EVIDENCE_SCHEMAS.stacks), PROVENANCE)),
        ),
      ).numRows,
    ).toBe(0);
  });
});

describe("track columns joined from tracks", () => {
  const utf8 = (name: string) => new Field(name, new Utf8(), true);
  function events(ids: string[], extra: Record<string, (string | null)[]> = {}): Table {
    const names = ["track_id", "name", ...Object.keys(extra)];
    const fields = names.map(utf8);
    const schema = new Schema(fields);
    // Two batches, so the join is checked across batch boundaries.
    const cut = Math.ceil(ids.length / 2);
    const batches = [
      [0, cut],
      [cut, ids.length],
    ].map(([lo, hi]) => {
      const cols = { track_id: ids, name: ids.map((_, i) => `e${i}`), ...extra } as Record<
        string,
        (string | null)[]
      >;
      const children = names.map((n) =>
        columnData({ name: n, type: "utf8", nullable: true }, cols[n]!, lo!, hi!),
      );
      return new RecordBatch(
        schema,
        makeData({ type: new Struct(fields), length: hi! - lo!, nullCount: 0, children }),
      );
    });
    return new Table(schema, batches);
  }
  const tracksOf = () =>
    trackRowsOf(readParquet(writeParquet(tableBufferToArrow(trackRows(3), PROVENANCE))));

  test(
    "each event gets its track's pid, tid and names, in the order asked; unknown tracks give " +
      "nulls",
    () => {
      const joined = withTrackColumns(
        events(["1:2", "1:0", "1:1", "zz", "1:2"]),
        ["thread_name", "name", "pid", "tid", "process_name"],
        tracksOf(),
      );
      expect(joined.schema.fields.map((f) => f.name)).toEqual([
        "thread_name",
        "name",
        "pid",
        "tid",
        "process_name",
      ]);
      expect(joined.toArray().map((r) => ({ ...r.toJSON() }))).toEqual([
        { thread_name: null, name: "e0", pid: "1", tid: "2", process_name: "app" },
        { thread_name: null, name: "e1", pid: "1", tid: "0", process_name: "app" },
        { thread_name: "w1", name: "e2", pid: "1", tid: "1", process_name: "app" },
        { thread_name: null, name: "e3", pid: null, tid: null, process_name: null },
        { thread_name: null, name: "e4", pid: "1", tid: "2", process_name: "app" },
      ]);
    },
  );

  test("events of the earlier layout keep their own track columns", () => {
    const old = events(["1:0", "1:1"], {
      pid: ["p-old", "p-old"],
      tid: ["x", "y"],
      process_name: [null, "n"],
      thread_name: ["a", "b"],
    });
    const joined = withTrackColumns(old, ["pid", "thread_name"], tracksOf());
    expect(joined.toArray().map((r) => ({ ...r.toJSON() }))).toEqual([
      { pid: "p-old", thread_name: "a" },
      { pid: "p-old", thread_name: "b" },
    ]);
  });

  test("which reads need the join", () => {
    expect(asksForTrackColumns(["name", "ts_ns"])).toBe(false);
    expect(asksForTrackColumns(["name", "thread_name"])).toBe(true);
    expect(() => withTrackColumns(events(["1:0"]).select(["name"]), ["pid"], tracksOf())).toThrow(
      "track_id",
    );
  });
});
