/**
 * The streamed `gecko` reader against the whole-payload reference (tests/adapters/
 * reference-gecko): every gecko and fxprofiler-processed corpus file, and hand-made cases
 * for the orders and shapes the corpus lacks, give the same rows in every table, the
 * same limitations and summary, or the same error code, through `extract` and through
 * `extractStream` in small chunks with spilling forced.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { geckoAdapter } from "../../src/adapters/gecko/adapter.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import { EVIDENCE_SCHEMAS, type EvidenceTableName } from "../../src/domain/evidence-schema.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { FileSpillSpace } from "../../workers/spill-space.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";
import { geckoReference } from "./reference-gecko/reference-adapter.ts";
import { bufferRows, runStream, streamedRows } from "./stream-harness.ts";

const TABLES = geckoAdapter.tables as EvidenceTableName[];
const limits = DEFAULT_ADAPTER_LIMITS;

function outcome(run: () => NormalizedEvidence): NormalizedEvidence | string {
  try {
    return run();
  } catch (error) {
    if (error instanceof FlameoxError) return error.code;
    throw error;
  }
}

async function streamOutcome(bytes: Uint8Array, chunkSize: number) {
  const dir = mkdtempSync(join(tmpdir(), "gecko-spill-"));
  const spill = new FileSpillSpace(dir, () => {});
  try {
    const run = await runStream(geckoAdapter, bytes, { chunkSize, spill, maxStacksInMemory: 64 });
    const rows: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const buffer = run.evidence.tables[table];
      rows[table] = run.evidence.streamed.includes(table)
        ? streamedRows(run.batches, table)
        : buffer
          ? bufferRows(buffer)
          : [];
    }
    return { evidence: run.evidence, rows };
  } catch (error) {
    if (error instanceof FlameoxError) return error.code;
    throw error;
  } finally {
    spill.disposeAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

const sortRows = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

async function expectSame(bytes: Uint8Array): Promise<void> {
  const reference = outcome(() => geckoReference.extract({ bytes, displayName: "t", limits }));
  const whole = outcome(() => geckoAdapter.extract({ bytes, displayName: "t", limits }));
  if (typeof reference === "string") {
    expect(whole).toBe(reference);
    expect((await streamOutcome(bytes, 97)) as unknown).toBe(reference);
    return;
  }
  expect(typeof whole).toBe("object");
  const w = whole as NormalizedEvidence;
  expect(w.limitations).toEqual(reference.limitations);
  expect(w.summary).toEqual(reference.summary);
  expect(w.producer).toEqual(reference.producer);
  for (const table of TABLES)
    expect({ table, rows: bufferRows(w.tables[table]) }).toEqual({
      table,
      rows: bufferRows(reference.tables[table]),
    });
  const streamed = await streamOutcome(bytes, 4093);
  expect(typeof streamed).toBe("object");
  const s = streamed as Exclude<typeof streamed, string>;
  expect(s.evidence.limitations).toEqual(reference.limitations);
  expect(s.evidence.summary).toEqual(reference.summary);
  for (const table of TABLES) {
    const expected = bufferRows(reference.tables[table]);
    // Stacks stream in chunks of their own order; every other table keeps the rows' order.
    if (table === "stacks")
      expect({ table, rows: sortRows(s.rows[table]!) }).toEqual({
        table,
        rows: sortRows(expected),
      });
    else expect({ table, rows: s.rows[table] }).toEqual({ table, rows: expected });
  }
  void EVIDENCE_SCHEMAS;
}

describe("gecko streaming equals the whole-payload reference", () => {
  for (const format of ["gecko", "fxprofiler-processed"])
    for (const file of corpusFiles(format))
      test(`${format}/${file.name}`, async () => {
        await expectSame(loadPayload(file.path));
      });
});
