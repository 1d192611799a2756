/**
 * Comparing an adapter's streaming (WASM) extraction with its whole-payload extraction,
 * which stays the reference: same rows in every table, same limitations, summary and
 * producer; or the same typed error with the same message.
 */
import { expect } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS, type AdapterLimits, type ProducerAdapter } from "../../src/adapters/adapter.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import { bufferRows, runStream, streamedRows } from "./stream-harness.ts";

type Outcome = { error: { code: string; message: string } } | { evidence: Record<string, unknown> };

function failure(error: unknown): Outcome {
  if (!(error instanceof FlameoxError)) throw error;
  return { error: { code: error.code, message: error.message } };
}

export async function expectSameOutcome(adapter: ProducerAdapter, bytes: Uint8Array, options: { displayName?: string; chunkSize?: number; limits?: Partial<AdapterLimits> } = {}): Promise<void> {
  const limits = { ...DEFAULT_ADAPTER_LIMITS, ...options.limits };
  const displayName = options.displayName ?? "case";
  let reference: Outcome;
  try {
    const whole = adapter.extract({ bytes, displayName, limits });
    const tables = Object.fromEntries(adapter.tables.map((t) => [t, bufferRows(whole.tables[t])]));
    reference = { evidence: { tables, limitations: whole.limitations, summary: whole.summary, producer: whole.producer, producerVersion: whole.producerVersion } };
  } catch (error) {
    reference = failure(error);
  }
  let streamed: Outcome;
  try {
    const { evidence, batches } = await runStream(adapter, bytes, { displayName, chunkSize: options.chunkSize, limits: options.limits });
    const tables = Object.fromEntries(adapter.tables.map((t) => [t, evidence.streamed.includes(t) ? streamedRows(batches, t) : bufferRows(evidence.tables[t]!)]));
    streamed = { evidence: { tables, limitations: evidence.limitations, summary: evidence.summary, producer: evidence.producer, producerVersion: evidence.producerVersion } };
  } catch (error) {
    streamed = failure(error);
  }
  if ("error" in reference && "error" in streamed) {
    expect(streamed.error.code).toBe(reference.error.code);
    // Syntax (JSON) and wire (protobuf) errors are worded by each parser; everything else must match exactly.
    if (!/invalid JSON|invalid protobuf/.test(reference.error.message)) expect(streamed.error.message).toBe(reference.error.message);
    return;
  }
  expect(streamed).toEqual(reference);
}
