/**
 * The parse worker's own Arrow IPC stream writer against apache-arrow's: for every evidence
 * table and the batch shapes adapters hand over (dictionary columns, lists, nulls, several
 * batches whose dictionaries replace each other, none at all), parquet-wasm must write the same
 * file from either stream, byte for byte, and apache-arrow must read the stream back as the
 * table it would have built itself.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { tableFromIPC } from "apache-arrow/Arrow.dom";
import {
  type ColumnBatch,
  type ColumnVector,
  sliceColumnBatch,
} from "../../src/domain/column-batch.ts";
import {
  EVIDENCE_SCHEMAS,
  EVIDENCE_TABLE_NAMES,
  type EvidenceTableName,
} from "../../src/domain/evidence-schema.ts";
import { IpcStreamWriter, evidenceIpcStream } from "../../src/storage/arrow-ipc-stream.ts";
import { columnBatchesToTable } from "../../src/storage/column-batch-arrow.ts";
import { initParquet, writeParquet, writeParquetFromIpc } from "../../src/storage/parquet.ts";
import { warmUpBatch } from "../../workers/parquet-warm-up.ts";
import { TEST_PROVENANCE } from "../helpers.ts";

beforeAll(() => initParquet());

/** Every third row of each nullable column set to null. */
function withNulls(batch: ColumnBatch): ColumnBatch {
  for (const spec of EVIDENCE_SCHEMAS[batch.table].columns) {
    if (!spec.nullable) continue;
    const vector = batch.columns[spec.name]!;
    const valid = new Uint8Array((batch.length + 7) >> 3).fill(0xff);
    let nulls = 0;
    for (let row = 0; row < batch.length; row += 3) {
      valid[row >> 3]! &= ~(1 << (row & 7));
      nulls++;
    }
    batch.columns[spec.name] = { ...vector, valid, nullCount: nulls } as ColumnVector;
  }
  return batch;
}

/** The batch with its list_utf8 columns as dictionary indices (as stacks are written). */
function withListDictionaries(batch: ColumnBatch): ColumnBatch {
  for (const [name, vector] of Object.entries(batch.columns)) {
    if (vector.type !== "list_utf8") continue;
    const decoder = new TextDecoder();
    const distinct = new Map<string, number>();
    const items = vector.listOffsets[batch.length]!;
    const indices = new Int32Array(items);
    for (let i = 0; i < items; i++) {
      const text = decoder.decode(vector.data.subarray(vector.offsets[i]!, vector.offsets[i + 1]!));
      if (!distinct.has(text)) distinct.set(text, distinct.size);
      indices[i] = distinct.get(text)!;
    }
    const encoded = [...distinct.keys()].map((t) => new TextEncoder().encode(t));
    const dictOffsets = new Int32Array(encoded.length + 1);
    encoded.forEach((e, i) => {
      dictOffsets[i + 1] = dictOffsets[i]! + e.length;
    });
    const dictData = new Uint8Array(dictOffsets[encoded.length]!);
    encoded.forEach((e, i) => dictData.set(e, dictOffsets[i]!));
    batch.columns[name] = {
      type: "list_utf8_dict",
      listOffsets: vector.listOffsets,
      indices,
      dictOffsets,
      dictData,
      valid: vector.valid,
      nullCount: vector.nullCount,
    };
  }
  return batch;
}

function parts(table: EvidenceTableName): [string, ColumnBatch[]][] {
  return [
    ["one batch", [warmUpBatch(table, 100)]],
    ["two batches, dictionaries replaced", [warmUpBatch(table, 50), warmUpBatch(table, 70)]],
    ["nulls", [withNulls(warmUpBatch(table, 90)), withNulls(warmUpBatch(table, 33))]],
    ["a slice", [sliceColumnBatch(withNulls(warmUpBatch(table, 90)), 7, 60)]],
    ["lists as dictionaries", [withListDictionaries(withNulls(warmUpBatch(table, 40)))]],
    ["no batch", []],
    ["a batch of no rows", [warmUpBatch(table, 0)]],
  ];
}

describe("Arrow IPC stream of evidence batches", () => {
  for (const table of EVIDENCE_TABLE_NAMES) {
    test(`${table}: the same Parquet file as apache-arrow's stream gives`, () => {
      for (const [, batches] of parts(table)) {
        const reference = writeParquet(columnBatchesToTable(table, TEST_PROVENANCE, batches));
        const written = writeParquetFromIpc(evidenceIpcStream(table, TEST_PROVENANCE, batches));
        expect(Buffer.from(written).equals(Buffer.from(reference))).toBe(true);
      }
    });
  }

  test("apache-arrow reads the stream back as the table it builds itself", () => {
    for (const table of ["stacks", "trace_events", "otel_spans"] as const) {
      for (const [shape, batches] of parts(table)) {
        const read = tableFromIPC(evidenceIpcStream(table, TEST_PROVENANCE, batches));
        const built = columnBatchesToTable(table, TEST_PROVENANCE, batches);
        expect([shape, read.numRows]).toEqual([shape, built.numRows]);
        expect(read.schema.metadata).toEqual(built.schema.metadata);
        expect(read.schema.fields.map((f) => `${f.name}:${f.type}:${f.nullable}`)).toEqual(
          built.schema.fields.map((f) => `${f.name}:${f.type}:${f.nullable}`),
        );
        expect(JSON.stringify(read.toArray(), bigints)).toBe(
          JSON.stringify(built.toArray(), bigints),
        );
      }
    }
  });

  test("offsets that do not start at zero are written from zero", () => {
    const text = new TextEncoder().encode("xxxabcdefg");
    const batch: ColumnBatch = {
      table: "tracks",
      length: 2,
      columns: {
        track_id: {
          type: "utf8",
          offsets: new Int32Array([3, 5, 10]),
          data: text,
          valid: null,
          nullCount: 0,
        },
        pid: {
          type: "utf8",
          offsets: new Int32Array([0, 1, 2]),
          data: text,
          valid: null,
          nullCount: 0,
        },
        tid: {
          type: "utf8",
          offsets: new Int32Array([0, 0, 0]),
          data: text,
          valid: null,
          nullCount: 0,
        },
        process_name: {
          type: "utf8",
          offsets: new Int32Array([0, 0, 0]),
          data: text,
          valid: new Uint8Array([0]),
          nullCount: 2,
        },
        thread_name: {
          type: "utf8",
          offsets: new Int32Array([0, 0, 0]),
          data: text,
          valid: new Uint8Array([2]),
          nullCount: 1,
        },
        track_index: {
          type: "int32",
          values: new Int32Array([7, 0]),
          valid: new Uint8Array([1]),
          nullCount: 1,
        },
      },
    };
    const read = tableFromIPC(evidenceIpcStream("tracks", TEST_PROVENANCE, [batch]));
    expect(read.toArray().map((r) => r.toJSON())).toEqual([
      { track_id: "ab", pid: "x", tid: "", process_name: null, thread_name: null, track_index: 7 },
      {
        track_id: "cdefg",
        pid: "x",
        tid: "",
        process_name: null,
        thread_name: "",
        track_index: null,
      },
    ]);
  });

  test("a reused writer's buffer holds only the latest stream, which is whole", () => {
    const writer = new IpcStreamWriter();
    const large = writer.write("trace_events", TEST_PROVENANCE, [warmUpBatch("trace_events", 500)]);
    const largeLength = large.length;
    const small = writer.write("tracks", TEST_PROVENANCE, [warmUpBatch("tracks", 3)]);
    // The second stream is written in the first's memory, and is what a fresh writer writes.
    expect(small.buffer).toBe(large.buffer);
    expect(small.length).toBeLessThan(largeLength);
    expect(
      Buffer.from(small).equals(
        Buffer.from(evidenceIpcStream("tracks", TEST_PROVENANCE, [warmUpBatch("tracks", 3)])),
      ),
    ).toBe(true);
    // A stream past what is kept goes to memory of its own.
    const tiny = new IpcStreamWriter(64);
    const first = tiny.write("tracks", TEST_PROVENANCE, [warmUpBatch("tracks", 3)]);
    const second = tiny.write("tracks", TEST_PROVENANCE, [warmUpBatch("tracks", 3)]);
    expect(second.buffer).not.toBe(first.buffer);
  });

  test("refuses what apache-arrow's path refuses, with the same errors", () => {
    const stream = (batches: ColumnBatch[], provenance = TEST_PROVENANCE) =>
      evidenceIpcStream("tracks", provenance, batches);
    const missing = warmUpBatch("tracks", 4);
    delete missing.columns.pid;
    expect(() => stream([missing])).toThrow("Batch of tracks lacks column pid");
    const wrongType = warmUpBatch("tracks", 4);
    wrongType.columns.pid = { type: "int32", values: new Int32Array(4), valid: null, nullCount: 0 };
    expect(() => stream([wrongType])).toThrow(
      "Expected tracks.pid to be utf8 but the batch has int32",
    );
    const nullId = withNulls(warmUpBatch("tracks", 4));
    nullId.columns.track_id = { ...nullId.columns.pid!, nullCount: 2 } as ColumnVector;
    expect(() => stream([nullId])).toThrow("Expected track_id to be set but 2 rows are null");
    // The warm-up's tracks columns all come as dictionaries; one of them spelled out here.
    const plain = warmUpBatch("tracks", 4);
    const spelled = warmUpBatch("tracks", 4);
    spelled.columns.pid = {
      type: "utf8",
      offsets: new Int32Array([0, 1, 2, 3, 4]),
      data: new Uint8Array([0x31, 0x32, 0x33, 0x34]),
      valid: null,
      nullCount: 0,
    };
    expect(() => stream([plain, spelled])).toThrow("do not share one schema");
    expect(() => stream([plain], { ...TEST_PROVENANCE, run_id: 5 })).toThrow(/run_id/);
    expect(() => stream([plain], { ...TEST_PROVENANCE, extra: "x" })).toThrow(/extra/);
    expect(() => evidenceIpcStream("stacks", TEST_PROVENANCE, [plain])).toThrow(
      "A batch of tracks cannot be written as stacks",
    );
  });
});

function bigints(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? `${value}n` : value;
}
