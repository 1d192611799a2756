/**
 * Evidence rows as columns: typed arrays for numbers, one UTF-8 byte buffer plus offsets
 * for strings, Arrow-style validity bitmaps (bit set = value present). Streaming adapters
 * hand large tables over in these batches, so a table of millions of rows never exists as
 * millions of JS values; storage turns a batch into an Arrow record batch without a
 * per-cell conversion.
 */
import type { EvidenceTableName } from "./evidence-schema.ts";

interface Validity {
  /** null when every row has a value. */
  valid: Uint8Array | null;
  nullCount: number;
}

export type ColumnVector =
  | ({ type: "int32"; values: Int32Array } & Validity)
  | ({ type: "int64"; values: BigInt64Array } & Validity)
  | ({ type: "float64"; values: Float64Array } & Validity)
  /** Booleans packed as Arrow packs them: row r is bit r % 8 of byte r / 8. */
  | ({ type: "bool"; values: Uint8Array } & Validity)
  | ({ type: "utf8"; offsets: Int32Array; data: Uint8Array } & Validity)
  /**
   * Strings as indices into the batch's own dictionary of distinct values (Arrow's
   * Dictionary<Int32, Utf8>): a utf8 column whose values repeat (names, phases, tracks)
   * costs one int per row to build and hand over, and parquet-wasm dictionary-encodes it in
   * about a third of the time it takes for the same strings spelled out. Stored Parquet
   * columns are strings either way.
   */
  | ({
      type: "utf8_dict";
      indices: Int32Array;
      dictOffsets: Int32Array;
      dictData: Uint8Array;
    } & Validity)
  /**
   * A list of strings per row: row r's items are items listOffsets[r]..listOffsets[r+1] of the utf8
   * (offsets, data).
   */
  | ({
      type: "list_utf8";
      listOffsets: Int32Array;
      offsets: Int32Array;
      data: Uint8Array;
    } & Validity)
  /**
   * A list of strings per row as indices into the batch's own dictionary (Arrow's
   * List<Dictionary<Int32, Utf8>>): row r's items are indices[listOffsets[r]..listOffsets[r+1]].
   * A stack's path repeats a few frame ids over and over (a 100 MB Chromium Perfetto trace: 2.7M
   * path items over 216 frames); an item then costs an int, not a copy of its id, and Parquet
   * stores the list's strings dictionary-encoded either way it is given them.
   */
  | ({
      type: "list_utf8_dict";
      listOffsets: Int32Array;
      indices: Int32Array;
      dictOffsets: Int32Array;
      dictData: Uint8Array;
    } & Validity);

export interface ColumnBatch {
  table: EvidenceTableName;
  length: number;
  /** One vector per column of the table's schema (provenance columns excluded). */
  columns: Record<string, ColumnVector>;
}

/** Rows [start, end) of a vector, copied: the copy owns its buffers (see `sliceColumnBatch`). */
function sliceVector(v: ColumnVector, start: number, end: number): ColumnVector {
  const n = end - start;
  let valid: Uint8Array | null = null;
  let nullCount = 0;
  if (v.valid !== null && v.nullCount > 0) {
    valid = new Uint8Array((n + 7) >> 3);
    for (let i = 0; i < n; i++) {
      const at = start + i;
      if ((v.valid[at >> 3]! >> (at & 7)) & 1) valid[i >> 3]! |= 1 << (i & 7);
      else nullCount++;
    }
    if (nullCount === 0) valid = null;
  }
  switch (v.type) {
    case "int32":
      return { type: "int32", values: v.values.slice(start, end), valid, nullCount };
    case "int64":
      return { type: "int64", values: v.values.slice(start, end), valid, nullCount };
    case "float64":
      return { type: "float64", values: v.values.slice(start, end), valid, nullCount };
    case "bool": {
      const values = new Uint8Array((n + 7) >> 3);
      for (let i = 0; i < n; i++) {
        const at = start + i;
        if ((v.values[at >> 3]! >> (at & 7)) & 1) values[i >> 3]! |= 1 << (i & 7);
      }
      return { type: "bool", values, valid, nullCount };
    }
    case "utf8": {
      const from = v.offsets[start]!;
      const offsets = v.offsets.slice(start, end + 1);
      for (let i = 0; i < offsets.length; i++) offsets[i]! -= from;
      return { type: "utf8", offsets, data: v.data.slice(from, v.offsets[end]!), valid, nullCount };
    }
    case "utf8_dict":
      return {
        type: "utf8_dict",
        indices: v.indices.slice(start, end),
        dictOffsets: v.dictOffsets.slice(),
        dictData: v.dictData.slice(),
        valid,
        nullCount,
      };
    case "list_utf8": {
      const firstItem = v.listOffsets[start]!;
      const lastItem = v.listOffsets[end]!;
      const listOffsets = v.listOffsets.slice(start, end + 1);
      for (let i = 0; i < listOffsets.length; i++) listOffsets[i]! -= firstItem;
      const from = v.offsets[firstItem]!;
      const offsets = v.offsets.slice(firstItem, lastItem + 1);
      for (let i = 0; i < offsets.length; i++) offsets[i]! -= from;
      return {
        type: "list_utf8",
        listOffsets,
        offsets,
        data: v.data.slice(from, v.offsets[lastItem]!),
        valid,
        nullCount,
      };
    }
    case "list_utf8_dict": {
      const firstItem = v.listOffsets[start]!;
      const listOffsets = v.listOffsets.slice(start, end + 1);
      for (let i = 0; i < listOffsets.length; i++) listOffsets[i]! -= firstItem;
      return {
        type: "list_utf8_dict",
        listOffsets,
        indices: v.indices.slice(firstItem, v.listOffsets[end]!),
        dictOffsets: v.dictOffsets.slice(),
        dictData: v.dictData.slice(),
        valid,
        nullCount,
      };
    }
  }
}

/**
 * Rows [start, end) of a batch as a new batch that owns its buffers: the part of a batch
 * that falls on each side of a part boundary can then be handed to different threads.
 */
export function sliceColumnBatch(batch: ColumnBatch, start: number, end: number): ColumnBatch {
  const columns: Record<string, ColumnVector> = {};
  for (const name in batch.columns) columns[name] = sliceVector(batch.columns[name]!, start, end);
  return { table: batch.table, length: end - start, columns };
}

/** The typed arrays a batch's vectors hold, each once. */
export function columnBatchArrays(batch: ColumnBatch): ArrayBufferView[] {
  const arrays: ArrayBufferView[] = [];
  for (const name in batch.columns) {
    const v = batch.columns[name]!;
    if (v.valid) arrays.push(v.valid);
    if (v.type === "utf8") arrays.push(v.offsets, v.data);
    else if (v.type === "utf8_dict") arrays.push(v.indices, v.dictOffsets, v.dictData);
    else if (v.type === "list_utf8") arrays.push(v.listOffsets, v.offsets, v.data);
    else if (v.type === "list_utf8_dict")
      arrays.push(v.listOffsets, v.indices, v.dictOffsets, v.dictData);
    else arrays.push(v.values);
  }
  return arrays;
}
