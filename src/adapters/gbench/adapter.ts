/**
 * Google Benchmark JSON (`--benchmark_out_format=json`). Entries with run_type
 * `iteration` (or none, in old files) are repetitions: real_time and cpu_time per
 * iteration in `time_unit`, value_index = repetition_index, plus user counters
 * (bytes_per_second, items_per_second, custom ones). Entries with run_type `aggregate`
 * (mean, median, stddev, cv, BigO, RMS) are kept separately with their aggregate name, never
 * mixed with repetitions. Errored runs (error_occurred) have no valid times: counted, skipped.
 */
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import { arrayAt, benchmarkAdapter } from "../benchmarks/benchmark-adapter.ts";
import type { MeasurementWriter } from "../benchmarks/measurement-writer.ts";
import { gbenchDescription } from "./description.ts";

const LABEL = "Google Benchmark JSON";
/** Keys that describe an entry rather than measure it. */
const DESCRIPTIVE = new Set([
  "name",
  "run_name",
  "run_type",
  "family_index",
  "per_family_instance_index",
  "repetitions",
  "repetition_index",
  "threads",
  "iterations",
  "real_time",
  "cpu_time",
  "time_unit",
  "aggregate_name",
  "aggregate_unit",
  "label",
  "error_occurred",
  "error_message",
  "big_o",
  "cpu_coefficient",
  "real_coefficient",
  "rms",
]);

function readEntry(
  entry: unknown,
  i: number,
  out: MeasurementWriter,
): "sample" | "aggregate" | "error" | "empty" {
  const at = `benchmarks[${i}]`;
  if (!isPlainObject(entry)) throw expectationFailed(LABEL, at, "an object", entry);
  if (typeof entry.name !== "string")
    throw expectationFailed(LABEL, `${at}.name`, "a string", entry.name);
  const scope = typeof entry.run_name === "string" ? entry.run_name : entry.name;
  const unit = typeof entry.time_unit === "string" ? entry.time_unit : "ns";
  const dims = {
    threads: typeof entry.threads === "number" ? entry.threads : null,
    iterations: typeof entry.iterations === "number" ? entry.iterations : null,
    label: typeof entry.label === "string" ? entry.label : null,
    family_index: typeof entry.family_index === "number" ? entry.family_index : null,
  };
  if (entry.error_occurred === true) {
    out.skip(
      "benchmark_error",
      "benchmarks that reported an error (SkipWithError) have no valid times and were not " +
        "imported as samples",
    );
    return "error";
  }
  const aggregate = entry.run_type === "aggregate";
  const aggregation = aggregate
    ? String(entry.aggregate_name ?? "aggregate").toLowerCase()
    : "sample";
  const percentage = aggregate && entry.aggregate_unit === "percentage";
  const base = {
    scope,
    aggregation,
    value_index: aggregate
      ? null
      : typeof entry.repetition_index === "number"
        ? entry.repetition_index
        : 0,
    dimensions: dims,
  };
  let rows = 0;
  for (const metric of ["real_time", "cpu_time"] as const) {
    if (typeof entry[metric] !== "number") continue;
    out.add({
      ...base,
      name: metric,
      value: entry[metric] as number,
      unit: percentage ? "ratio" : unit,
      loop_count: aggregate ? null : dims.iterations,
    });
    rows++;
  }
  for (const coefficient of ["real_coefficient", "cpu_coefficient"] as const) {
    if (typeof entry[coefficient] !== "number") continue;
    out.add({
      ...base,
      name: coefficient,
      value: entry[coefficient] as number,
      unit,
      dimensions: { ...dims, big_o: String(entry.big_o ?? "") },
    });
    rows++;
  }
  if (typeof entry.rms === "number") {
    out.add({ ...base, name: "rms", value: entry.rms, unit: "ratio" });
    rows++;
  }
  for (const [key, value] of Object.entries(entry)) {
    if (DESCRIPTIVE.has(key) || typeof value !== "number" || !Number.isFinite(value)) continue;
    out.add({
      ...base,
      name: `counter.${key}`,
      value,
      unit: percentage ? "ratio" : key.endsWith("_per_second") ? "per_second" : "count",
    });
    rows++;
  }
  if (rows === 0) {
    out.skip("benchmark_without_values", "entries without times or counters were skipped");
    return "empty";
  }
  return aggregate ? "aggregate" : "sample";
}

export const gbenchAdapter = benchmarkAdapter({
  ...gbenchDescription,
  label: LABEL,
  read(document, out) {
    const entries = arrayAt(LABEL, "benchmarks", document.benchmarks);
    const kinds = entries.map((e, i) => readEntry(e, i, out));
    const context = isPlainObject(document.context) ? document.context : {};
    const count = (k: string) => kinds.filter((x) => x === k).length;
    return {
      producer: "google-benchmark",
      producerVersion: typeof context.library_version === "string" ? context.library_version : null,
      summary: {
        repetitions: count("sample"),
        aggregates: count("aggregate"),
        errored: count("error"),
        empty: count("empty"),
      },
    };
  },
});
