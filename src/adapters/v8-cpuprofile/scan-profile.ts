/**
 * A `.cpuprofile` (modern `nodes` form or legacy `head` form) through the WASM JSON
 * scanner into a validated SampledProfileInput: nodes as small objects (nodes are few),
 * samples and time deltas in typed arrays (they are the bulk). Only the top-level shape
 * is checked here, with JSON.parse's view of the values in the messages; per-node and
 * per-sample checks happen in the shared normalizer's single pass over them.
 */
import type { AdapterLimits } from "../adapter.ts";
import { expectationFailed, tooLarge } from "../json-guard.ts";
import {
  TAG_ABSENT,
  TAG_ARRAY,
  TAG_OBJECT,
  sampleOfKind,
  type JsonBatch,
} from "../wasm/json-batch.ts";
import { JsonScanner, type JsonScanOptions } from "../wasm/json-scanner.ts";
import type { SampledProfileInput } from "../v8-sample-tree/normalize-sampled-profile.ts";
import { legacyHeadToProfile } from "./legacy-head.ts";
import { expectedSamples, NumbersColumn } from "./numbers-column.ts";
import {
  N_CALL_FRAME,
  N_CHILDREN,
  N_COLUMN,
  N_FUNCTION,
  N_ID,
  N_LINE,
  N_PARENT,
  N_URL,
  P_END,
  P_HEAD,
  P_NODES,
  P_SAMPLES,
  P_START,
  P_TIME_DELTAS,
  P_TIMESTAMPS,
  profileProgram,
  R_CHILD,
  R_DELTA,
  R_NODE,
  R_PROFILE,
  R_SAMPLE,
  R_TIMESTAMP,
} from "./profile-program.ts";

const FORMAT = "cpuprofile";

interface TopLevel {
  kind: number;
  slots: Map<number, { kind: number; value: unknown }>;
}

export interface ParsedCpuProfile {
  profile: SampledProfileInput;
  legacyHead: boolean;
}

const scanOptions = (limits: AdapterLimits): JsonScanOptions => ({
  format: FORMAT,
  maxDepth: limits.maxNestingDepth,
  truncateJsonAt: 1 << 30,
});

/** The profile in chunks, as it streams in. */
/** `payloadBytes`: the payload's size when known, to size the sample columns by. */
export async function scanCpuProfile(
  chunks: AsyncIterable<Uint8Array>,
  limits: AdapterLimits,
  payloadBytes?: number,
): Promise<ParsedCpuProfile> {
  const reader = profileReader(limits, expectedSamples(payloadBytes));
  await (await JsonScanner.open(profileProgram(), scanOptions(limits))).scanChunks(
    chunks,
    reader.onBatch,
  );
  return reader.result();
}

function profileReader(
  limits: AdapterLimits,
  expected: number,
): {
  onBatch: (b: JsonBatch) => void;
  result(): ParsedCpuProfile;
} {
  const nodes: unknown[] = [];
  const samples = new NumbersColumn(expected);
  const deltas = new NumbersColumn(expected);
  const timestamps = new NumbersColumn();
  let children: unknown[] = [];
  let childrenOf = -1;
  const top: TopLevel = { kind: TAG_ABSENT, slots: new Map() };
  const columns = new Map([
    [R_SAMPLE, samples],
    [R_DELTA, deltas],
    [R_TIMESTAMP, timestamps],
  ]);
  const onBatch = (b: JsonBatch): void => {
    for (let r = 0; r < b.count; r++) {
      switch (b.type(r)) {
        case R_SAMPLE:
        case R_DELTA:
        case R_TIMESTAMP:
          columns.get(b.type(r))!.pushOther(b.value(r, 0));
          break;
        case R_CHILD:
          if (b.parent(r) !== childrenOf) {
            children = [];
            childrenOf = b.parent(r);
          }
          children.push(b.value(r, 0));
          break;
        case R_NODE:
          nodes.push(nodeValue(b, r, b.serial(r) === childrenOf ? children : []));
          if (nodes.length > limits.maxEvents)
            throw tooLarge(FORMAT, "nodes", nodes.length, limits.maxEvents);
          break;
        case R_PROFILE:
          top.kind = b.selfKind(r);
          for (const slot of [
            P_NODES,
            P_SAMPLES,
            P_TIME_DELTAS,
            P_START,
            P_END,
            P_HEAD,
            P_TIMESTAMPS,
          ]) {
            top.slots.set(slot, { kind: b.kind(r, slot), value: b.value(r, slot) });
          }
          break;
      }
    }
    b.forEachRun((type, values) => columns.get(type)!.pushRun(values));
    if (samples.length > limits.maxEvents)
      throw tooLarge(FORMAT, "samples", samples.length, limits.maxEvents);
  };
  return { onBatch, result: () => profileOf(top, nodes, samples, deltas, timestamps, limits) };
}

function profileOf(
  top: TopLevel,
  nodes: unknown[],
  samples: NumbersColumn,
  deltas: NumbersColumn,
  timestamps: NumbersColumn,
  limits: AdapterLimits,
): ParsedCpuProfile {
  if (top.kind !== TAG_OBJECT)
    throw expectationFailed(FORMAT, "the top-level value", "an object", sampleOfKind(top.kind));
  const slot = (s: number) => top.slots.get(s)!;
  const legacyHead = slot(P_NODES).kind === TAG_ABSENT && slot(P_HEAD).kind !== TAG_ABSENT;
  const arrayOr = (s: number, column: NumbersColumn): unknown =>
    slot(s).kind === TAG_ARRAY ? column.items() : slot(s).value;
  const profile = legacyHead
    ? legacyHeadToProfile({
        head: slot(P_HEAD).value,
        samples:
          slot(P_SAMPLES).kind === TAG_ARRAY ? Array.from(samples.items()) : slot(P_SAMPLES).value,
        timestamps:
          slot(P_TIMESTAMPS).kind === TAG_ARRAY
            ? Array.from(timestamps.items())
            : slot(P_TIMESTAMPS).value,
        ...(slot(P_START).kind !== TAG_ABSENT ? { startTime: slot(P_START).value } : {}),
        ...(slot(P_END).kind !== TAG_ABSENT ? { endTime: slot(P_END).value } : {}),
      })
    : modernProfile(
        slot(P_NODES).kind === TAG_ARRAY ? nodes : slot(P_NODES).value,
        arrayOr(P_SAMPLES, samples),
        arrayOr(P_TIME_DELTAS, deltas),
        slot(P_START).value,
        slot(P_END).value,
      );
  if (profile.samples.length > limits.maxEvents)
    throw tooLarge(FORMAT, "samples", profile.samples.length, limits.maxEvents);
  if (profile.nodes.length > limits.maxEvents)
    throw tooLarge(FORMAT, "nodes", profile.nodes.length, limits.maxEvents);
  return { profile, legacyHead };
}

const isArrayLike = (v: unknown): v is readonly unknown[] =>
  Array.isArray(v) || v instanceof Float64Array;

/** The modern form's top-level checks, over streamed values. */
function modernProfile(
  nodes: unknown,
  samplesValue: unknown,
  timeDeltas: unknown,
  startTime: unknown,
  endTime: unknown,
): SampledProfileInput {
  const samples = samplesValue ?? [];
  if (!Array.isArray(nodes)) throw expectationFailed(FORMAT, "nodes", "an array", nodes);
  if (!isArrayLike(samples)) throw expectationFailed(FORMAT, "samples", "an array", samples);
  if (timeDeltas !== undefined && !isArrayLike(timeDeltas))
    throw expectationFailed(FORMAT, "timeDeltas", "an array", timeDeltas);
  if (startTime !== undefined && (typeof startTime !== "number" || !Number.isFinite(startTime)))
    throw expectationFailed(FORMAT, "startTime", "a finite number", startTime);
  if (endTime !== undefined && (typeof endTime !== "number" || !Number.isFinite(endTime)))
    throw expectationFailed(FORMAT, "endTime", "a finite number", endTime);
  return {
    nodes,
    samples,
    timeDeltas: (timeDeltas as readonly unknown[] | undefined) ?? null,
    startTimeUs: (startTime as number | undefined) ?? 0,
    endTimeUs: (endTime as number | undefined) ?? null,
  };
}

/** A node as JSON.parse would give it (only the fields the normalizer reads). */
function nodeValue(b: JsonBatch, r: number, children: unknown[]): unknown {
  if (b.selfKind(r) !== TAG_OBJECT) return sampleOfKind(b.selfKind(r));
  const node: Record<string, unknown> = {};
  if (b.kind(r, N_ID) !== TAG_ABSENT) node.id = b.value(r, N_ID);
  if (b.kind(r, N_PARENT) !== TAG_ABSENT) node.parent = b.value(r, N_PARENT);
  if (b.kind(r, N_CHILDREN) !== TAG_ABSENT)
    node.children = b.kind(r, N_CHILDREN) === TAG_ARRAY ? children : b.value(r, N_CHILDREN);
  if (b.kind(r, N_CALL_FRAME) === TAG_OBJECT) {
    node.callFrame = {
      functionName: b.value(r, N_FUNCTION),
      url: b.value(r, N_URL),
      lineNumber: b.value(r, N_LINE),
      columnNumber: b.value(r, N_COLUMN),
    };
  } else if (b.kind(r, N_CALL_FRAME) !== TAG_ABSENT) {
    node.callFrame = b.value(r, N_CALL_FRAME);
  }
  return node;
}
