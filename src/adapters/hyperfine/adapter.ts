/**
 * `hyperfine --export-json`: `results[]`, one per command, each with every run's wall time
 * in `times` (seconds), optional `exit_codes`, `memory_usage_byte` (hyperfine ≥ 1.17) and
 * `parameters`. Every run is one `wall_time` sample; hyperfine's own mean/median/stddev/
 * min/max and its user/system means are kept as aggregate rows, never instead of samples.
 */
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import { arrayAt, benchmarkAdapter, numberAt } from "../benchmarks/benchmark-adapter.ts";
import type { MeasurementWriter } from "../benchmarks/measurement-writer.ts";
import { hyperfineDescription } from "./description.ts";

const LABEL = "hyperfine JSON";
const AGGREGATES = ["mean", "median", "stddev", "min", "max"] as const;

/**
 * Seconds → whole nanoseconds. hyperfine measures in whole nanoseconds and prints their
 * f64 quotient by 1e9, so s × 1e9 comes back a hair off (0.00295031774 → 2950317.7399999998)
 * and would be stored as a float; rounding recovers the integer it was.
 */
const nanoseconds = (seconds: number) => Math.round(seconds * 1e9);

function readResult(result: unknown, index: number, out: MeasurementWriter): number {
  const at = `results[${index}]`;
  if (!isPlainObject(result)) throw expectationFailed(LABEL, at, "an object", result);
  if (typeof result.command !== "string")
    throw expectationFailed(LABEL, `${at}.command`, "a string", result.command);
  const scope = result.command;
  const parameters = isPlainObject(result.parameters) ? result.parameters : {};
  const params = Object.fromEntries(
    Object.entries(parameters).map(([k, v]) => [`parameter.${k}`, String(v)]),
  );
  const times = arrayAt(LABEL, `${at}.times`, result.times ?? []);
  const exitCodes =
    result.exit_codes === undefined ? null : arrayAt(LABEL, `${at}.exit_codes`, result.exit_codes);
  const memory =
    result.memory_usage_byte === undefined
      ? null
      : arrayAt(LABEL, `${at}.memory_usage_byte`, result.memory_usage_byte);
  times.forEach((t, i) => {
    const exit = exitCodes?.[i];
    out.add({
      name: "wall_time",
      value: nanoseconds(numberAt(LABEL, `${at}.times[${i}]`, t)),
      unit: "ns",
      aggregation: "sample",
      scope,
      value_index: i,
      dimensions: { ...params, exit_code: typeof exit === "number" ? exit : null },
    });
  });
  exitCodes?.forEach((code, i) =>
    out.add({
      name: "exit_code",
      value: numberAt(LABEL, `${at}.exit_codes[${i}]`, code),
      unit: "code",
      aggregation: "sample",
      scope,
      value_index: i,
      dimensions: params,
    }),
  );
  memory?.forEach((bytes, i) =>
    out.add({
      name: "memory_usage",
      value: numberAt(LABEL, `${at}.memory_usage_byte[${i}]`, bytes),
      unit: "byte",
      aggregation: "peak",
      scope,
      value_index: i,
      dimensions: params,
    }),
  );
  for (const agg of AGGREGATES) {
    if (typeof result[agg] === "number")
      out.add({
        name: "wall_time",
        value: nanoseconds(result[agg] as number),
        unit: "ns",
        aggregation: agg,
        scope,
        dimensions: params,
      });
  }
  for (const [field, name] of [
    ["user", "user_time"],
    ["system", "system_time"],
  ] as const) {
    if (typeof result[field] === "number")
      out.add({
        name,
        value: nanoseconds(result[field] as number),
        unit: "ns",
        aggregation: "mean",
        scope,
        dimensions: params,
      });
  }
  if (times.length === 0)
    out.skip("no_samples", `${scope}: hyperfine reported no individual run times`);
  if (exitCodes?.some((c) => c !== 0))
    out.skip(
      "nonzero_exit_codes",
      "some benchmark runs exited with a non-zero code (hyperfine -i); their times are kept " +
        "and tagged with exit_code",
    );
  return times.length;
}

export const hyperfineAdapter = benchmarkAdapter({
  ...hyperfineDescription,
  label: LABEL,
  read(document, out) {
    const results = arrayAt(LABEL, "results", document.results);
    let samples = 0;
    results.forEach((r, i) => (samples += readResult(r, i, out)));
    return {
      producer: "hyperfine",
      producerVersion: null,
      summary: { commands: results.length, samples },
    };
  },
});
