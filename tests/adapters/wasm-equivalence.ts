/**
 * Comparing an adapter's streaming (WASM) extraction with its whole-payload extraction,
 * which stays the reference: same rows in every table, same limitations, summary and
 * producer; or the same typed error with the same message. Where an adapter's `extract`
 * runs the very pipeline its `extractStream` runs, the reference is an independent
 * implementation kept here in tests (REFERENCES).
 */
import { expect } from "bun:test";
import {
  DEFAULT_ADAPTER_LIMITS,
  type AdapterLimits,
  type ProducerAdapter,
} from "../../src/adapters/adapter.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { Row } from "./evidence-checks.ts";
import { bufferRows, runStream, streamedTableRows } from "./stream-harness.ts";
import { chromeTraceReference } from "./reference-chrome-trace/reference-adapter.ts";
import { cpuProfileReference } from "./reference-v8-cpuprofile/reference-adapter.ts";
import { heapProfileReference } from "./reference-v8-heapprofile/reference-adapter.ts";
import { pprofReference } from "./reference-pprof/reference-adapter.ts";
import { otlpJsonReference, otlpProtoReference } from "./reference-otlp/reference-adapters.ts";

const REFERENCES: Record<string, ProducerAdapter> = Object.fromEntries(
  [
    chromeTraceReference,
    cpuProfileReference,
    heapProfileReference,
    pprofReference,
    otlpJsonReference,
    otlpProtoReference,
  ].map((a) => [a.name, a]),
);

type Outcome = { error: { code: string; message: string } } | { evidence: Record<string, unknown> };

function failure(error: unknown): Outcome {
  if (!(error instanceof FlameoxError)) throw error;
  return { error: { code: error.code, message: error.message } };
}

/**
 * Streaming trace adapters write `trace_events` per track in time order, the whole-payload
 * reference in input order: rows are compared in event_index order.
 */
function inEventOrder(table: string, rows: Row[]): Row[] {
  return table === "trace_events"
    ? rows.toSorted((a, b) => Number(a.event_index) - Number(b.event_index))
    : rows;
}

/**
 * Trace adapters' streaming extraction is run twice: with the default spool run size, and
 * with runs of a few hundred events, so that multi-run merging is checked on every case too.
 */
export async function expectSameOutcome(
  adapter: ProducerAdapter,
  bytes: Uint8Array,
  options: { displayName?: string; chunkSize?: number; limits?: Partial<AdapterLimits> } = {},
): Promise<void> {
  await expectSameOutcomeWith(adapter, bytes, options);
  if (adapter.tables.includes("trace_events"))
    await expectSameOutcomeWith(adapter, bytes, { ...options, spoolRunEvents: 331 });
}

async function expectSameOutcomeWith(
  adapter: ProducerAdapter,
  bytes: Uint8Array,
  options: {
    displayName?: string;
    chunkSize?: number;
    limits?: Partial<AdapterLimits>;
    spoolRunEvents?: number;
  },
): Promise<void> {
  const limits = { ...DEFAULT_ADAPTER_LIMITS, ...options.limits };
  const displayName = options.displayName ?? "case";
  let reference: Outcome;
  try {
    const whole = (REFERENCES[adapter.name] ?? adapter).extract({ bytes, displayName, limits });
    const tables = Object.fromEntries(
      adapter.tables.map((t) => [t, inEventOrder(t, bufferRows(whole.tables[t]))]),
    );
    reference = {
      evidence: {
        tables,
        limitations: whole.limitations,
        summary: whole.summary,
        producer: whole.producer,
        producerVersion: whole.producerVersion,
      },
    };
  } catch (error) {
    reference = failure(error);
  }
  let streamed: Outcome;
  try {
    const run = await runStream(adapter, bytes, {
      displayName,
      chunkSize: options.chunkSize,
      limits: options.limits,
      spoolRunEvents: options.spoolRunEvents,
    });
    const { evidence } = run;
    const tables = Object.fromEntries(
      adapter.tables.map((t) => [
        t,
        inEventOrder(
          t,
          evidence.streamed.includes(t)
            ? streamedTableRows(run, t)
            : bufferRows(evidence.tables[t]!),
        ),
      ]),
    );
    streamed = {
      evidence: {
        tables,
        limitations: evidence.limitations,
        summary: evidence.summary,
        producer: evidence.producer,
        producerVersion: evidence.producerVersion,
      },
    };
  } catch (error) {
    streamed = failure(error);
  }
  if ("error" in reference && "error" in streamed) {
    expect(streamed.error.code).toBe(reference.error.code);
    // Syntax (JSON) and wire (protobuf) errors are worded by each parser; everything else must
    // match exactly.
    if (!/invalid JSON|invalid protobuf/.test(reference.error.message))
      expect(streamed.error.message).toBe(reference.error.message);
    return;
  }
  expect(streamed).toEqual(reference);
}
