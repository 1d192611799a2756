/**
 * Running adapters on small, project-made payloads, as the parse worker runs them: a
 * streaming adapter gets the payload in chunks and writes its large tables through a sink,
 * a whole-payload adapter gets it whole. Results come back as one NormalizedEvidence.
 */
import { expect } from "bun:test";
import {
  DEFAULT_ADAPTER_LIMITS,
  type AdapterDescription,
  type AdapterLimits,
  type ExtractInput,
  type ProducerAdapter,
  type StreamExtractInput,
} from "../../src/adapters/adapter.ts";
import { tableOfBatches } from "./batch-tables.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import type { ColumnBatch } from "../../src/domain/column-batch.ts";
import { FlameoxError, type ErrorCode } from "../../src/domain/errors.ts";
import { emptyTables, type NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { chunked } from "./stream-harness.ts";

export const cpuProfileAdapter: ProducerAdapter = adapterByName("v8-cpuprofile")!;
export const chromeTraceAdapter: ProducerAdapter = adapterByName("chrome-trace")!;

/**
 * An independent whole-payload implementation of a format, kept in tests as the reference
 * production's pipeline is compared with (it may be async: it never runs in production).
 */
export interface ReferenceAdapter extends AdapterDescription {
  extract(input: ExtractInput): NormalizedEvidence | Promise<NormalizedEvidence>;
}

/** An adapter's description without its pipeline, for a reference to add its own. */
export function described(adapter: AdapterDescription): AdapterDescription {
  const { name, version, artifactKind, mediaType, tables, detect } = adapter;
  return { name, version, artifactKind, mediaType, tables, detect };
}

export function payload(value: unknown): Uint8Array {
  return new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));
}

/** The payload and what `extracted` passes on with it (worker defaults otherwise). */
export interface Extraction {
  bytes: Uint8Array;
  displayName?: string;
  limits?: Partial<AdapterLimits>;
  context?: Record<string, unknown> | null;
  /** Bytes per chunk a streaming adapter is fed (the worker reads 1 MiB pieces). */
  chunkSize?: number;
  spill?: StreamExtractInput["spill"];
}

/**
 * Runs `adapter` over `bytes` through its one pipeline, as the parse worker does, and returns
 * every table whole: streamed tables are rebuilt from their batches, rows in the order the
 * stream wrote them (a trace's `trace_events` per track in time order).
 */
export async function extracted(
  adapter: ProducerAdapter | ReferenceAdapter,
  options: Extraction,
): Promise<NormalizedEvidence> {
  const bytes = options.bytes;
  const displayName = options.displayName ?? "case";
  const limits = { ...DEFAULT_ADAPTER_LIMITS, ...options.limits };
  const context = options.context ?? null;
  if (adapter.extract) return await adapter.extract({ bytes, displayName, limits, context });
  const batches: ColumnBatch[] = [];
  const streamed = await adapter.extractStream({
    chunks: chunked(bytes, options.chunkSize ?? 1 << 20),
    displayName,
    limits,
    context,
    sink: { writeBatch: async (batch) => void batches.push(batch) },
    spill: options.spill,
  });
  const { tables: whole, streamed: names, ...rest } = streamed;
  const tables = emptyTables();
  for (const table of adapter.tables) {
    if (names.includes(table))
      tables[table] = tableOfBatches(
        batches.filter((b) => b.table === table),
        table,
      );
    else if (whole[table]) tables[table] = whole[table];
  }
  return { ...rest, tables };
}

export function extractWith(
  adapter: ProducerAdapter | ReferenceAdapter,
  value: unknown,
  limits: Partial<AdapterLimits> = {},
): Promise<NormalizedEvidence> {
  return extracted(adapter, { bytes: payload(value), limits });
}

/** `run` must fail with a FlameoxError of `code`; returns its message. */
export async function expectRejection(run: Promise<unknown>, code: ErrorCode): Promise<string> {
  try {
    await run;
  } catch (error) {
    expect(error).toBeInstanceOf(FlameoxError);
    expect((error as FlameoxError).code).toBe(code);
    return (error as FlameoxError).message;
  }
  throw new Error("extraction succeeded but was expected to fail");
}

/** Extraction must fail with a FlameoxError of `code`; returns its message. */
export function expectFailure(
  adapter: ProducerAdapter | ReferenceAdapter,
  value: unknown,
  code: ErrorCode,
  limits: Partial<AdapterLimits> = {},
): Promise<string> {
  return expectRejection(extractWith(adapter, value, limits), code);
}

export function limitation(evidence: NormalizedEvidence, code: string): number | undefined {
  const found = evidence.limitations.find((l) => l.code === code);
  return found === undefined ? undefined : (found.count ?? 1);
}

/** A minimal modern cpuprofile: `tree` lists [id, functionName, parentId] with id 1 = (root). */
export function cpuProfile(
  tree: [number, string, number][],
  samples: number[],
  timeDeltas: number[],
  extra: Record<string, unknown> = {},
) {
  const nodes = [[1, "(root)", 0] as [number, string, number], ...tree].map(([id, name]) => ({
    id,
    callFrame: {
      functionName: name,
      scriptId: "1",
      url: name.startsWith("(") ? "" : "file:///app.js",
      lineNumber: name.charCodeAt(0),
      columnNumber: name.length,
    },
    hitCount: 0,
    children: tree.filter(([, , parent]) => parent === id).map(([child]) => child),
  }));
  return {
    nodes,
    startTime: 1_000,
    endTime: 1_000 + timeDeltas.reduce((a, b) => a + b, 0) + 10,
    samples,
    timeDeltas,
    ...extra,
  };
}

/**
 * A Chrome trace holding one DevTools profile: its Profile event (id 0x1, pid 1, tid 1) and one
 * ProfileChunk (tid 2) carrying `data` ({ cpuProfile, timeDeltas }).
 */
export function oneChunkProfileTrace(data: Record<string, unknown>): Record<string, unknown>[] {
  return [
    {
      ph: "P",
      name: "Profile",
      id: "0x1",
      pid: 1,
      tid: 1,
      ts: 0,
      args: { data: { startTime: 0 } },
    },
    { ph: "P", name: "ProfileChunk", id: "0x1", pid: 1, tid: 2, ts: 1, args: { data } },
  ];
}
