/**
 * NVBench `--json` results. A benchmark runs one state per point of its axis sweep
 * (device × type and value axes); each state carries NVBench's own summaries, tagged
 * (`nv/cold/time/gpu/mean`, `nv/cold/sample_size`, `nv/batch/time/gpu/mean`, ...). The
 * file holds no per-sample values, only these summaries, so every row is a producer
 * aggregate: `name` is the tag as NVBench writes it, `aggregation` the statistic the tag
 * names (mean, median, p25/p75 for quartiles, cv for a relative stdev, count for a
 * sample size, summary otherwise),
 * `scope` is `benchmark/state`, and the state's device and axis values are dimensions,
 * so the same point of two runs lines up by scope.
 *
 * Per-sample values live in sidecar files that a summary declares
 * (`nv/json/bin:nv/cold/sample_times`,
 * `nv/json/freqs-bin:nv/cold/sample_freqs`: a `filename` datum relative to the JSON and a
 * `size` datum, the number of little-endian float32 values). An adapter reads only the
 * bytes it is handed, so each declared sidecar is returned as a companion file (with the
 * state's scope and dimensions as its context): the import reads it only if it passes the
 * import fence and holds exactly `size` × 4 bytes, and extracts it with `nvbench-samples`
 * as an artifact of the same run. A declaration without a usable filename or size is
 * counted in a limitation.
 * Skipped states (type combinations the benchmark rejects) are counted, with NVBench's
 * reasons, never turned into rows.
 */
import type { CompanionFile } from "../../domain/companion-files.ts";
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import { arrayAt, benchmarkAdapter } from "../benchmarks/benchmark-adapter.ts";
import type { MeasurementWriter } from "../benchmarks/measurement-writer.ts";
import { nvbenchDescription, nvbenchSamplesDescription } from "./description.ts";

const LABEL = "NVBench JSON";
/** NVBench's display hints, as units flameox normalizes (durations are seconds). */
const UNIT_OF_HINT: Record<string, string> = {
  duration: "s",
  percentage: "ratio",
  sample_size: "count",
  bytes: "bytes",
  item_rate: "per_second",
  byte_rate: "bytes_per_second",
  frequency: "hz",
};
/** The statistic a tag ends with, as an aggregation name (quartiles as percentiles). */
const STATISTIC: [RegExp, string][] = [
  [/\/stdev\/relative$/, "cv"],
  [/\/stdev\/absolute$/, "stddev"],
  [/\/(mean|median|min|max)$/, "$1"],
  [/\/q1$/, "p25"],
  [/\/q3$/, "p75"],
  [/\/(iqr|ir)\/absolute$/, "iqr"],
  [/\/(iqr|ir)\/relative$/, "iqr_relative"],
  [/\/sample_size$/, "count"],
];
const MAX_SIDECARS_NAMED = 20;
/**
 * What each sidecar tag holds, in NVBench's units (cold sample times in seconds, clock frequencies
 * in Hz).
 */
const SIDECAR_UNIT: Record<string, string> = {
  "nv/cold/sample_times": "s",
  "nv/cold/sample_freqs": "hz",
};

type Dims = Record<string, string | number | boolean | null>;

interface Tally {
  states: number;
  skipped: number;
  summaries: number;
  /** Declarations without a usable filename or size: named, not read. */
  sidecars: string[];
  companions: CompanionFile[];
}

function aggregationOf(tag: string): string {
  for (const [pattern, name] of STATISTIC) {
    const match = pattern.exec(tag);
    if (match) return name === "$1" ? match[1]! : name;
  }
  return "summary";
}

/** NVBench writes every datum as a string with its C++ type beside it. */
function numeric(at: string, datum: Record<string, unknown>): number | null {
  const type = datum.type;
  if (
    type !== "int64" &&
    type !== "float64" &&
    type !== "float32" &&
    type !== "int32" &&
    type !== "uint64"
  )
    return null;
  const raw = datum.value;
  const value =
    typeof raw === "number"
      ? raw
      : typeof raw === "string" && raw.trim() !== ""
        ? Number(raw)
        : Number.NaN;
  if (!Number.isFinite(value))
    throw expectationFailed(LABEL, `${at}.value`, `a finite ${String(type)}`, raw);
  return value;
}

/** Fails unless `value` (at `at`) is an object whose `key` is a string. */
function checkStringKey<K extends string>(
  at: string,
  value: unknown,
  key: K,
): asserts value is Record<string, unknown> & Record<K, string> {
  if (!isPlainObject(value) || typeof value[key] !== "string")
    throw expectationFailed(
      LABEL,
      `${at}.${key}`,
      "a string",
      isPlainObject(value) ? value[key] : value,
    );
}

function axisDimensions(at: string, axisValues: unknown): Dims {
  if (axisValues === null || axisValues === undefined) return {};
  const dims: Dims = {};
  arrayAt(LABEL, `${at}.axis_values`, axisValues).forEach((axis, i) => {
    checkStringKey(`${at}.axis_values[${i}]`, axis, "name");
    const n = numeric(`${at}.axis_values[${i}]`, axis);
    dims[`axis.${axis.name}`] = n ?? (axis.value === undefined ? null : String(axis.value));
  });
  return dims;
}

function readSummary(
  at: string,
  summary: unknown,
  scope: string,
  dims: Dims,
  out: MeasurementWriter,
  tally: Tally,
): void {
  checkStringKey(at, summary, "tag");
  const data = arrayAt(LABEL, `${at}.data`, summary.data);
  const tag = summary.tag;
  const hint = typeof summary.hint === "string" ? summary.hint : null;
  const file = data.find((d) => isPlainObject(d) && d.name === "filename");
  if (tag.startsWith("nv/json/") || (hint?.startsWith("file/") ?? false) || file !== undefined) {
    const name = isPlainObject(file) && typeof file.value === "string" ? file.value : null;
    const sizeDatum = data.find((d) => isPlainObject(d) && d.name === "size");
    const size = isPlainObject(sizeDatum) ? Number(sizeDatum.value) : Number.NaN;
    // `nv/json/bin:nv/cold/sample_times` names what the file holds after the colon.
    const holds = tag.includes(":") ? tag.slice(tag.indexOf(":") + 1) : tag;
    if (name === null || name === "" || !Number.isSafeInteger(size) || size < 0 || size > 2 ** 28) {
      tally.sidecars.push(`${scope}: ${name ?? tag}`);
      return;
    }
    tally.companions.push({
      filename: name,
      byte_length: size * 4,
      adapter: nvbenchSamplesDescription.name,
      context: {
        name: holds,
        unit: SIDECAR_UNIT[holds] ?? "count",
        scope,
        samples: size,
        dimensions: dims,
      },
    });
    return;
  }
  data.forEach((datum, d) => {
    const where = `${at}.data[${d}]`;
    checkStringKey(where, datum, "name");
    const value = numeric(where, datum);
    if (value === null) {
      out.skip(
        "non_numeric_summary",
        "summary data that are not numbers (strings, labels) were not imported as measurements",
      );
      return;
    }
    // A summary's main datum is `value`; any other datum is named after it.
    const name = datum.name === "value" ? tag : `${tag}#${datum.name}`;
    const unit = hint === null ? "count" : (UNIT_OF_HINT[hint] ?? hint);
    out.add({ name, value, unit, aggregation: aggregationOf(tag), scope, dimensions: dims });
    tally.summaries++;
  });
}

function readState(
  at: string,
  state: unknown,
  benchmark: string,
  devices: Map<number, string>,
  out: MeasurementWriter,
  tally: Tally,
): void {
  checkStringKey(at, state, "name");
  tally.states++;
  if (state.is_skipped === true) {
    tally.skipped++;
    out.skip(
      "state_skipped",
      "states the benchmark skipped have no measurements (NVBench's skip_reason says why)",
    );
    return;
  }
  const device = typeof state.device === "number" ? state.device : null;
  const dims: Dims = {
    device,
    device_name: device === null ? null : (devices.get(device) ?? null),
    ...axisDimensions(at, state.axis_values),
  };
  const scope = `${benchmark}/${state.name}`;
  const summaries =
    state.summaries === null || state.summaries === undefined
      ? []
      : arrayAt(LABEL, `${at}.summaries`, state.summaries);
  summaries.forEach((s, i) => readSummary(`${at}.summaries[${i}]`, s, scope, dims, out, tally));
}

function deviceNames(document: Record<string, unknown>): Map<number, string> {
  const names = new Map<number, string>();
  if (!Array.isArray(document.devices)) return names;
  for (const d of document.devices)
    if (isPlainObject(d) && typeof d.id === "number" && typeof d.name === "string")
      names.set(d.id, d.name);
  return names;
}

function nvbenchVersion(document: Record<string, unknown>): string | null {
  const version =
    isPlainObject(document.meta) && isPlainObject(document.meta.version)
      ? document.meta.version
      : null;
  const nvbench = version && isPlainObject(version.nvbench) ? version.nvbench : null;
  return nvbench && typeof nvbench.string === "string" ? nvbench.string : null;
}

export const nvbenchAdapter = benchmarkAdapter({
  ...nvbenchDescription,
  label: LABEL,
  read(document, out) {
    const benchmarks = arrayAt(LABEL, "benchmarks", document.benchmarks);
    const devices = deviceNames(document);
    const tally: Tally = { states: 0, skipped: 0, summaries: 0, sidecars: [], companions: [] };
    benchmarks.forEach((bench, b) => {
      const at = `benchmarks[${b}]`;
      checkStringKey(at, bench, "name");
      const name = bench.name;
      arrayAt(LABEL, `${at}.states`, bench.states).forEach((state, s) =>
        readState(`${at}.states[${s}]`, state, name, devices, out, tally),
      );
    });
    if (tally.sidecars.length > 0) {
      const named = tally.sidecars.slice(0, MAX_SIDECARS_NAMED).join("; ");
      const more =
        tally.sidecars.length > MAX_SIDECARS_NAMED
          ? ` and ${tally.sidecars.length - MAX_SIDECARS_NAMED} more`
          : "";
      out.skip(
        "sidecar_unusable",
        `sidecar declarations without a usable filename and size were not read: ${named}${more}`,
        tally.sidecars.length,
      );
    }
    return {
      producer: "nvbench",
      producerVersion: nvbenchVersion(document),
      summary: {
        benchmarks: benchmarks.length,
        states: tally.states,
        skipped_states: tally.skipped,
        summaries: tally.summaries,
        sidecars_declared: tally.companions.length + tally.sidecars.length,
      },
      companions: tally.companions,
    };
  },
});
