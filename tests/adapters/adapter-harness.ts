/** Running adapters on small, project-made payloads. */
import { expect } from "bun:test";
import {
  DEFAULT_ADAPTER_LIMITS,
  type AdapterLimits,
  type ProducerAdapter,
} from "../../src/adapters/adapter.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import { FlameoxError, type ErrorCode } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";

export const cpuProfileAdapter: ProducerAdapter = adapterByName("v8-cpuprofile")!;
export const chromeTraceAdapter: ProducerAdapter = adapterByName("chrome-trace")!;

export function payload(value: unknown): Uint8Array {
  return new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));
}

export function extractWith(
  adapter: ProducerAdapter,
  value: unknown,
  limits: Partial<AdapterLimits> = {},
): NormalizedEvidence {
  return adapter.extract({
    bytes: payload(value),
    displayName: "case",
    limits: { ...DEFAULT_ADAPTER_LIMITS, ...limits },
  });
}

/** Extraction must fail with a FlameoxError of `code`; returns its message. */
export function expectFailure(
  adapter: ProducerAdapter,
  value: unknown,
  code: ErrorCode,
  limits: Partial<AdapterLimits> = {},
): string {
  try {
    extractWith(adapter, value, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(FlameoxError);
    expect((error as FlameoxError).code).toBe(code);
    return (error as FlameoxError).message;
  }
  throw new Error("extraction succeeded but was expected to fail");
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
