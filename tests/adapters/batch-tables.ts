/** Tables rebuilt from the column batches a streaming adapter wrote, for tests to read whole. */
import type { ColumnBatch } from "../../src/domain/column-batch.ts";
import { EVIDENCE_SCHEMAS } from "../../src/domain/evidence-schema.ts";
import { TableBuffer, type CellValue } from "../../src/domain/table-buffer.ts";
import { appendBatch, batchRows } from "../../src/adapters/common/batch-table-buffer.ts";

/** The batches' rows as one table; with `orderBy` (an integer column), in that column's order. */
export function tableOfBatches(
  batches: Iterable<ColumnBatch>,
  table: keyof typeof EVIDENCE_SCHEMAS,
  orderBy?: string,
): TableBuffer {
  const buffer = new TableBuffer(EVIDENCE_SCHEMAS[table]);
  if (orderBy === undefined) {
    for (const batch of batches) appendBatch(buffer, batch);
    return buffer;
  }
  const rows: Record<string, CellValue>[] = [];
  for (const batch of batches) for (const row of batchRows(batch)) rows.push(row);
  rows.sort((a, b) => Number(a[orderBy]) - Number(b[orderBy]));
  for (const row of rows) buffer.append(row);
  return buffer;
}
