/** Reference: pprof through protobufjs, the whole profile decoded, then flattened. */
import { parseFailed } from "../../../src/adapters/json-guard.ts";
import { PPROF_FORMAT, type PprofInput } from "../../../src/adapters/pprof/pprof-input.ts";
import { Profile } from "../../../src/adapters/pprof/pprof-schema.ts";

type Msg = Record<string, unknown>;
const list = (v: unknown): Msg[] => (Array.isArray(v) ? (v as Msg[]) : []);
const num = (v: unknown): number => (v === undefined || v === null ? 0 : Number(String(v)));

export function parsePprof(bytes: Uint8Array): PprofInput {
  let p: Msg;
  try {
    p = Profile.toObject(Profile.decode(bytes), { longs: String }) as Msg;
  } catch (error) {
    throw parseFailed(PPROF_FORMAT, `invalid protobuf (${(error as Error).message})`);
  }
  const sampleTypes = list(p.sample_type).map((t) => ({ type: num(t.type), unit: num(t.unit) }));
  const samples = list(p.sample);
  const locationStart = new Int32Array(samples.length + 1);
  const ids: number[] = [];
  const values = new Float64Array(samples.length * sampleTypes.length);
  samples.forEach((s, i) => {
    for (const id of (s.location_id as unknown[] | undefined) ?? []) ids.push(num(id));
    locationStart[i + 1] = ids.length;
    ((s.value as unknown[] | undefined) ?? []).forEach((v, k) => {
      if (k < sampleTypes.length) values[i * sampleTypes.length + k] = num(v);
    });
  });
  const periodType = p.period_type as Msg | undefined;
  return {
    strings: ((p.string_table as string[] | undefined) ?? []).map(String),
    sampleTypes,
    locationIds: Float64Array.from(ids),
    locationStart,
    values,
    labels: samples.map((s) =>
      list(s.label).map((l) => ({
        key: num(l.key),
        str: num(l.str),
        num: num(l.num),
        numUnit: num(l.num_unit),
      })),
    ),
    sampleCount: samples.length,
    locations: list(p.location).map((l) => ({
      id: num(l.id),
      mappingId: num(l.mapping_id),
      address: BigInt(String(l.address ?? 0)),
      lines: list(l.line).map((ln) => ({
        functionId: num(ln.function_id),
        line: num(ln.line),
        column: num(ln.column),
      })),
    })),
    functions: list(p.function).map((f) => ({
      id: num(f.id),
      name: num(f.name),
      systemName: num(f.system_name),
      filename: num(f.filename),
      startLine: num(f.start_line),
    })),
    mappings: list(p.mapping).map((m) => ({
      id: num(m.id),
      filename: num(m.filename),
      buildId: num(m.build_id),
    })),
    timeNanos: BigInt(String(p.time_nanos ?? 0)),
    durationNanos: BigInt(String(p.duration_nanos ?? 0)),
    periodType: periodType ? { type: num(periodType.type), unit: num(periodType.unit) } : null,
    period: num(p.period),
    defaultSampleType: num(p.default_sample_type),
  };
}
