/**
 * A streaming adapter against its whole-payload reference: `extractStream` (small chunks,
 * samples and stacks spilled past tiny budgets, rows written in small batches) must give
 * the reference's rows, summary and limitations, or fail with its error code and message
 * (for invalid JSON, the words after "invalid JSON" are the parser's own: JSON.parse's,
 * or the scanner's with a byte offset).
 */
import { expect } from "bun:test";
import {
  DEFAULT_ADAPTER_LIMITS,
  type AdapterLimits,
  type ProducerAdapter,
} from "../../src/adapters/adapter.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { ReferenceAdapter } from "./adapter-harness.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { CountingSpillSpace } from "./spill-counting.ts";
import { bufferRows, runStream, streamedTableRows } from "./stream-harness.ts";

export type Outcome =
  | { error: string; message: string }
  | { evidence: Record<string, unknown>; spilled: number };

function described(e: Omit<NormalizedEvidence, "tables">) {
  return {
    adapter: e.adapter,
    producer: e.producer,
    producerVersion: e.producerVersion,
    summary: e.summary,
    limitations: e.limitations,
  };
}

function failed(error: unknown): Outcome {
  if (!(error instanceof FlameoxError)) throw error;
  return {
    error: error.code,
    message: error.message.replace(/invalid JSON \(.*\)$/, "invalid JSON"),
  };
}

async function whole(
  reference: ReferenceAdapter,
  bytes: Uint8Array,
  limits: AdapterLimits,
): Promise<Outcome> {
  try {
    const e = await reference.extract({ bytes, displayName: "t", limits });
    const rows = Object.fromEntries(reference.tables.map((t) => [t, bufferRows(e.tables[t])]));
    return { evidence: { ...described(e), ...rows }, spilled: 0 };
  } catch (error) {
    return failed(error);
  }
}

async function streamed(
  adapter: ProducerAdapter,
  bytes: Uint8Array,
  limits: AdapterLimits,
): Promise<Outcome> {
  const space = new CountingSpillSpace();
  try {
    const run = await runStream(adapter, bytes, {
      chunkSize: 97,
      limits,
      spill: space,
      recordBytesInMemory: 200,
      maxStacksInMemory: 2,
      spoolRunEvents: 5,
    });
    const rows = Object.fromEntries(
      adapter.tables.map((t) => [
        t,
        run.evidence.streamed.includes(t)
          ? streamedTableRows(run, t)
          : bufferRows(run.evidence.tables[t]!),
      ]),
    );
    return { evidence: { ...described(run.evidence), ...rows }, spilled: space.appends };
  } catch (error) {
    return failed(error);
  } finally {
    expect(space.open).toBe(0);
  }
}

/** Stacks by metric and id: spilled stacks are written in the order their runs merge. */
function stacksSorted(outcome: Outcome): Outcome {
  if (!("evidence" in outcome)) return outcome;
  const stacks = (outcome.evidence.stacks as Record<string, unknown>[])
    .map((row) => [`${row.metric} ${row.stack_id}`, row] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, row]) => row);
  return { ...outcome, evidence: { ...outcome.evidence, stacks } };
}

/** `adapter`'s pipeline gives `reference`'s outcome; returns the streamed one. */
export async function expectSameAsReference(
  adapter: ProducerAdapter,
  reference: ReferenceAdapter,
  bytes: Uint8Array,
  limits: Partial<AdapterLimits> = {},
): Promise<Outcome> {
  const all = { ...DEFAULT_ADAPTER_LIMITS, ...limits };
  const expected = await whole(reference, bytes, all);
  const stream = await streamed(adapter, bytes, all);
  expect(stacksSorted("error" in stream ? stream : { ...stream, spilled: 0 })).toEqual(
    stacksSorted(expected),
  );
  return stream;
}
