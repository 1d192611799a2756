/** ColumnBatch → TableBuffer rows: for tables merged from batches scanned apart (OTLP pieces). */
import type { ColumnBatch, ColumnVector } from "../../domain/column-batch.ts";
import { EVIDENCE_SCHEMAS } from "../../domain/evidence-schema.ts";
import type { TableBuffer, CellValue } from "../../domain/table-buffer.ts";

const utf8 = new TextDecoder();

/**
 * Absolute timestamps (`…ts_ns`) stay bigint, as the adapters' own TableBuffer writers
 * give them (epoch nanoseconds pass 2^53); other int64 cells are numbers while exact.
 */
const isTimestamp = (column: string): boolean => column.endsWith("ts_ns");

function cell(vector: ColumnVector, i: number, timestamp: boolean): CellValue {
  if (vector.valid && (vector.valid[i >> 3]! & (1 << (i & 7))) === 0) return null;
  switch (vector.type) {
    case "utf8":
    case "utf8_dict":
      return stringCell(vector, i);
    case "int64": {
      const v = vector.values[i]!;
      return !timestamp &&
        v >= BigInt(Number.MIN_SAFE_INTEGER) &&
        v <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(v)
        : v;
    }
    case "list_utf8":
    case "list_utf8_dict":
      return listItems(vector, i);
    case "bool":
      return ((vector.values[i >> 3]! >> (i & 7)) & 1) === 1;
    default:
      return vector.values[i]!;
  }
}

/** Row i's string of a string vector (null or not: the validity is the caller's). */
export function stringCell(
  vector: Extract<ColumnVector, { type: "utf8" | "utf8_dict" }>,
  i: number,
): string {
  if (vector.type === "utf8")
    return utf8.decode(vector.data.subarray(vector.offsets[i]!, vector.offsets[i + 1]!));
  const k = vector.indices[i]!;
  return utf8.decode(vector.dictData.subarray(vector.dictOffsets[k]!, vector.dictOffsets[k + 1]!));
}

/** Row i's strings of a list_utf8 or list_utf8_dict vector. */
export function listItems(
  vector: Extract<ColumnVector, { type: "list_utf8" | "list_utf8_dict" }>,
  i: number,
): string[] {
  const items: string[] = [];
  for (let k = vector.listOffsets[i]!; k < vector.listOffsets[i + 1]!; k++) {
    if (vector.type === "list_utf8")
      items.push(utf8.decode(vector.data.subarray(vector.offsets[k]!, vector.offsets[k + 1]!)));
    else {
      const d = vector.indices[k]!;
      items.push(
        utf8.decode(vector.dictData.subarray(vector.dictOffsets[d]!, vector.dictOffsets[d + 1]!)),
      );
    }
  }
  return items;
}

export function* batchRows(batch: ColumnBatch): Generator<Record<string, CellValue>> {
  const names = EVIDENCE_SCHEMAS[batch.table].columns.map((c) => c.name);
  for (let i = 0; i < batch.length; i++) {
    const row: Record<string, CellValue> = {};
    for (const name of names) row[name] = cell(batch.columns[name]!, i, isTimestamp(name));
    yield row;
  }
}

export function appendBatch(target: TableBuffer, batch: ColumnBatch): void {
  for (const row of batchRows(batch)) target.append(row);
}
