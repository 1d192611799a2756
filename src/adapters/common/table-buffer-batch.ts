/**
 * TableBuffer → ColumnBatch, for streaming adapters whose rows are naturally built as
 * values (OTLP spans): rows are collected in bounded TableBuffers and handed to the sink
 * batch by batch, so the whole table never exists at once.
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import { Int32Builder, Int64Builder, Utf8Builder } from "./column-builders.ts";

const encoder = new TextEncoder();

export function tableBufferToBatch(buffer: TableBuffer): ColumnBatch {
  const n = buffer.rowCount;
  const columns: ColumnBatch["columns"] = {};
  for (const col of buffer.schema.columns) {
    const cells = buffer.column(col.name);
    if (col.type === "utf8") {
      const b = new Utf8Builder(n);
      for (let i = 0; i < n; i++) {
        const v = cells[i];
        if (v === null || v === undefined) b.setNull(i);
        else b.set(i, encoder.encode(v as string));
      }
      columns[col.name] = b.build(n);
    } else if (col.type === "int64") {
      const b = new Int64Builder(n);
      for (let i = 0; i < n; i++) {
        const v = cells[i];
        if (v === null || v === undefined) b.setNull(i);
        else if (typeof v === "bigint") b.setBig(i, v);
        else b.set(i, v as number);
      }
      columns[col.name] = b.build(n);
    } else if (col.type === "int32") {
      const b = new Int32Builder(n);
      for (let i = 0; i < n; i++) {
        const v = cells[i];
        if (v === null || v === undefined) b.setNull(i);
        else b.set(i, v as number);
      }
      columns[col.name] = b.build(n);
    } else if (col.type === "bool") {
      const values = new Uint8Array((n + 7) >> 3);
      const valid = new Uint8Array((n + 7) >> 3);
      let nullCount = 0;
      for (let i = 0; i < n; i++) {
        const v = cells[i];
        if (v === null || v === undefined) nullCount++;
        else {
          valid[i >> 3]! |= 1 << (i & 7);
          if (v === true) values[i >> 3]! |= 1 << (i & 7);
        }
      }
      columns[col.name] = { type: "bool", values, valid: nullCount > 0 ? valid : null, nullCount };
    } else {
      throw new TypeError(
        `Column type ${col.type} of ${buffer.schema.name}.${col.name} cannot be streamed`,
      );
    }
  }
  return { table: buffer.schema.name, length: n, columns };
}
