/**
 * pprof through the WASM wire scanner: every repeated element (sample, location id,
 * value, label, location, line, function, mapping, string) is a record; a sample's or
 * location's elements arrive just before it and are attached when it arrives.
 */
import { GrowableF64 } from "../common/growable.ts";
import { tooLarge } from "../json-guard.ts";
import type { ProtoBatch } from "../wasm/proto-batch.ts";
import { P_SCALAR, PACKED_VARINT, ProtoProgram } from "../wasm/proto-program.ts";
import { ProtoScanner } from "../wasm/proto-scanner.ts";
import { PPROF_FORMAT, type PprofInput, type PprofLabel, type PprofLine } from "./pprof-input.ts";

const R_PROFILE = 0,
  R_VT = 1,
  R_SAMPLE = 2,
  R_LOCID = 3,
  R_VAL = 4,
  R_LABEL = 5,
  R_MAPPING = 6,
  R_LOCATION = 7,
  R_LINE = 8,
  R_FUNCTION = 9,
  R_STRING = 10;

function pprofProgram(): ProtoProgram {
  const p = new ProtoProgram(7);
  p.record(0, R_PROFILE).whole(R_PROFILE);
  [
    [9, 0],
    [10, 1],
    [12, 2],
    [14, 3],
  ].forEach(([field, slot]) => p.value(0, field!, R_PROFILE, slot!));
  const periodType = p.child(0, 11, p.message());
  p.value(periodType, 1, R_PROFILE, 4);
  p.value(periodType, 2, R_PROFILE, 5);
  p.presence(periodType, R_PROFILE, 6);
  const vt = p.child(0, 1, p.message({ record: R_VT }));
  p.value(vt, 1, R_VT, 0);
  p.value(vt, 2, R_VT, 1);
  const sample = p.child(0, 2, p.message({ record: R_SAMPLE }));
  p.value(sample, 1, R_LOCID, 0, P_SCALAR, PACKED_VARINT, R_LOCID);
  p.value(sample, 2, R_VAL, 0, P_SCALAR, PACKED_VARINT, R_VAL);
  const label = p.child(sample, 3, p.message({ record: R_LABEL }));
  [1, 2, 3, 4].forEach((field, slot) => p.value(label, field, R_LABEL, slot));
  const mapping = p.child(0, 3, p.message({ record: R_MAPPING }));
  [
    [1, 0],
    [5, 1],
    [6, 2],
  ].forEach(([field, slot]) => p.value(mapping, field!, R_MAPPING, slot!));
  const location = p.child(0, 4, p.message({ record: R_LOCATION }));
  [1, 2, 3].forEach((field, slot) => p.value(location, field, R_LOCATION, slot));
  const line = p.child(location, 4, p.message({ record: R_LINE }));
  [1, 2, 3].forEach((field, slot) => p.value(line, field, R_LINE, slot));
  const fn = p.child(0, 5, p.message({ record: R_FUNCTION }));
  [1, 2, 3, 4, 5].forEach((field, slot) => p.value(fn, field, R_FUNCTION, slot));
  p.value(0, 6, R_STRING, 0, P_SCALAR, 0, R_STRING);
  return p;
}

/** The profile in chunks, as it streams in. */
export async function scanPprof(
  chunks: AsyncIterable<Uint8Array>,
  maxDepth: number,
  maxSamples: number,
): Promise<PprofInput> {
  const scanner = await ProtoScanner.open(pprofProgram(), { format: PPROF_FORMAT, maxDepth });
  const reader = pprofReader(maxSamples);
  for await (const chunk of chunks) scanner.push(chunk, reader.onBatch);
  scanner.finish(reader.onBatch);
  return reader.result();
}

function pprofReader(maxSamples: number): {
  onBatch: (b: ProtoBatch) => void;
  result(): PprofInput;
} {
  const input: PprofInput = {
    strings: [],
    sampleTypes: [],
    locationIds: new Float64Array(0),
    locationStart: new Int32Array(0),
    values: new Float64Array(0),
    labels: [],
    sampleCount: 0,
    locations: [],
    functions: [],
    mappings: [],
    timeNanos: 0n,
    durationNanos: 0n,
    periodType: null,
    period: 0,
    defaultSampleType: 0,
  };
  const locationIds = new GrowableF64();
  const starts: number[] = [0];
  const sampleValues: number[][] = [];
  let pendingValues: number[] = [];
  let pendingLabels: PprofLabel[] = [];
  let pendingLines: PprofLine[] = [];
  let pendingOwner = -1;
  const own = (b: ProtoBatch, r: number): void => {
    if (b.parent(r) === pendingOwner) return;
    pendingOwner = b.parent(r);
    pendingValues = [];
    pendingLabels = [];
    pendingLines = [];
  };
  const mine = (b: ProtoBatch, r: number): boolean => b.serial(r) === pendingOwner;
  const onBatch = (b: ProtoBatch): void => {
    for (let r = 0; r < b.count; r++) {
      switch (b.type(r)) {
        case R_STRING:
          input.strings.push(b.string(r, 0) ?? "");
          break;
        case R_LOCID:
          own(b, r);
          locationIds.push(b.num(r, 0));
          break;
        case R_VAL:
          own(b, r);
          pendingValues.push(b.num(r, 0));
          break;
        case R_LABEL:
          own(b, r);
          pendingLabels.push({
            key: b.num(r, 0),
            str: b.num(r, 1),
            num: b.num(r, 2),
            numUnit: b.num(r, 3),
          });
          break;
        case R_SAMPLE: {
          const own = mine(b, r);
          starts.push(locationIds.length);
          sampleValues.push(own ? pendingValues : []);
          input.labels.push(own ? pendingLabels : []);
          pendingOwner = -1;
          if (sampleValues.length > maxSamples)
            throw tooLarge(PPROF_FORMAT, "samples", sampleValues.length, maxSamples);
          break;
        }
        case R_LINE:
          own(b, r);
          pendingLines.push({ functionId: b.num(r, 0), line: b.num(r, 1), column: b.num(r, 2) });
          break;
        case R_LOCATION:
          input.locations.push({
            id: b.num(r, 0),
            mappingId: b.num(r, 1),
            address: b.ubig(r, 2),
            lines: mine(b, r) ? pendingLines : [],
          });
          pendingOwner = -1;
          break;
        case R_FUNCTION:
          input.functions.push({
            id: b.num(r, 0),
            name: b.num(r, 1),
            systemName: b.num(r, 2),
            filename: b.num(r, 3),
            startLine: b.num(r, 4),
          });
          break;
        case R_MAPPING:
          input.mappings.push({ id: b.num(r, 0), filename: b.num(r, 1), buildId: b.num(r, 2) });
          break;
        case R_VT:
          input.sampleTypes.push({ type: b.num(r, 0), unit: b.num(r, 1) });
          break;
        case R_PROFILE:
          input.timeNanos = b.big(r, 0);
          input.durationNanos = b.big(r, 1);
          input.period = b.num(r, 2);
          input.defaultSampleType = b.num(r, 3);
          if (b.has(r, 6)) input.periodType = { type: b.num(r, 4), unit: b.num(r, 5) };
          break;
      }
    }
  };
  const result = (): PprofInput => {
    const types = input.sampleTypes.length;
    input.sampleCount = sampleValues.length;
    input.locationIds = locationIds.array.slice(0, locationIds.length);
    input.locationStart = Int32Array.from(starts);
    input.values = new Float64Array(input.sampleCount * types);
    sampleValues.forEach((values, i) =>
      values.forEach((v, k) => {
        if (k < types) input.values[i * types + k] = v;
      }),
    );
    return input;
  };
  return { onBatch, result };
}
