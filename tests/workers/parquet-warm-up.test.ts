/**
 * The encode thread's warm-up (workers/parquet-warm-up.ts) encodes synthetic parts: they must
 * be valid parts of their tables, or the warm-up would fail (quietly: it never fails the import)
 * and warm nothing.
 */
import { expect, test } from "bun:test";
import { EVIDENCE_SCHEMAS, EVIDENCE_TABLE_NAMES } from "../../src/domain/evidence-schema.ts";
import { initParquet, readParquet, writeParquet } from "../../src/storage/parquet.ts";
import {
  WARM_UP_ROWS,
  WARM_UP_TABLES,
  warmUpBatch,
  warmUpParquet,
} from "../../workers/parquet-warm-up.ts";
import { columnBatchesToTable } from "../../src/storage/column-batch-arrow.ts";
import { TEST_PROVENANCE } from "../helpers.ts";

test("a synthetic part of every table encodes and reads back with its schema's columns", async () => {
  await initParquet();
  for (const table of EVIDENCE_TABLE_NAMES) {
    const bytes = writeParquet(columnBatchesToTable(table, TEST_PROVENANCE, [warmUpBatch(table)]));
    const read = readParquet(bytes);
    expect(read.numRows).toBe(WARM_UP_ROWS);
    for (const column of EVIDENCE_SCHEMAS[table].columns)
      expect(read.getChild(column.name)?.length).toBe(WARM_UP_ROWS);
  }
});

test("the warm-up encodes the big tables, to the same size every time (its data is deterministic)", async () => {
  await initParquet();
  expect(WARM_UP_TABLES).toEqual(["trace_events", "stacks", "otel_spans"]);
  const first = warmUpParquet();
  expect(first).toBeGreaterThan(0);
  expect(warmUpParquet()).toBe(first);
});
