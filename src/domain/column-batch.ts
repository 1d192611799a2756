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
  | ({ type: "utf8"; offsets: Int32Array; data: Uint8Array } & Validity)
  /** A list of strings per row: row r's items are items listOffsets[r]..listOffsets[r+1] of the utf8 (offsets, data). */
  | ({ type: "list_utf8"; listOffsets: Int32Array; offsets: Int32Array; data: Uint8Array } & Validity);

export interface ColumnBatch {
  table: EvidenceTableName;
  length: number;
  /** One vector per column of the table's schema (provenance columns excluded). */
  columns: Record<string, ColumnVector>;
}
