/**
 * Comparing an adapter's streaming (WASM) extraction with a reference: same rows in every
 * table, same limitations, summary and producer; or the same typed error with the same
 * message. The reference is an independent whole-payload implementation kept here in tests
 * (REFERENCES) where the format has one; otherwise it is the same pipeline fed the whole
 * payload as one chunk with the default spool, so that chunk boundaries and spool runs are
 * what is checked.
 */
import { expect } from "bun:test";
import {
  DEFAULT_ADAPTER_LIMITS,
  type AdapterLimits,
  type ProducerAdapter,
} from "../../src/adapters/adapter.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { ReferenceAdapter } from "./adapter-harness.ts";
import type { Row } from "./evidence-checks.ts";
import { bufferRows, runStream, streamedTableRows } from "./stream-harness.ts";
import { chromeTraceReference } from "./reference-chrome-trace/reference-adapter.ts";
import { cpuProfileReference } from "./reference-v8-cpuprofile/reference-adapter.ts";
import { heapProfileReference } from "./reference-v8-heapprofile/reference-adapter.ts";
import { pprofReference } from "./reference-pprof/reference-adapter.ts";
import { otlpJsonReference, otlpProtoReference } from "./reference-otlp/reference-adapters.ts";

const REFERENCES: Record<string, ReferenceAdapter> = Object.fromEntries(
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
  const reference = REFERENCES[adapter.name];
  const expected = reference
    ? await wholeOutcome(reference, bytes, displayName, limits)
    : await streamedOutcome(adapter, bytes, {
        displayName,
        chunkSize: Math.max(1, bytes.length),
        limits: options.limits,
      });
  const streamed = await streamedOutcome(adapter, bytes, {
    displayName,
    chunkSize: options.chunkSize,
    limits: options.limits,
    spoolRunEvents: options.spoolRunEvents,
  });
  if ("error" in expected && "error" in streamed) {
    expect(streamed.error.code).toBe(expected.error.code);
    // Syntax (JSON) and wire (protobuf) errors are worded by each parser; everything else must
    // match exactly.
    if (!reference || !/invalid JSON|invalid protobuf/.test(expected.error.message))
      expect(streamed.error.message).toBe(expected.error.message);
    return;
  }
  expect(streamed).toEqual(expected);
}

async function wholeOutcome(
  reference: ReferenceAdapter,
  bytes: Uint8Array,
  displayName: string,
  limits: AdapterLimits,
): Promise<Outcome> {
  try {
    const whole = await reference.extract({ bytes, displayName, limits });
    const tables = Object.fromEntries(
      reference.tables.map((t) => [t, inEventOrder(t, bufferRows(whole.tables[t]))]),
    );
    return {
      evidence: {
        tables,
        limitations: whole.limitations,
        summary: whole.summary,
        producer: whole.producer,
        producerVersion: whole.producerVersion,
      },
    };
  } catch (error) {
    return failure(error);
  }
}

async function streamedOutcome(
  adapter: ProducerAdapter,
  bytes: Uint8Array,
  options: {
    displayName: string;
    chunkSize?: number;
    limits?: Partial<AdapterLimits>;
    spoolRunEvents?: number;
  },
): Promise<Outcome> {
  try {
    const run = await runStream(adapter, bytes, options);
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
    return {
      evidence: {
        tables,
        limitations: evidence.limitations,
        summary: evidence.summary,
        producer: evidence.producer,
        producerVersion: evidence.producerVersion,
      },
    };
  } catch (error) {
    return failure(error);
  }
}
