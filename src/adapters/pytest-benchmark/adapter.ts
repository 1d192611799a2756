/**
 * pytest-benchmark `--benchmark-json`. Raw per-round times are in `stats.data` only when
 * the run kept them (`--benchmark-save-data`); each becomes a `wall_time` sample. The
 * summary statistics (min, max, mean, stddev, median, ...) are aggregate rows. A file
 * without raw data yields aggregates only, with a limitation saying so.
 */
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import { arrayAt, benchmarkAdapter, numberAt } from "../benchmarks/benchmark-adapter.ts";
import { pytestBenchmarkDescription } from "./description.ts";

const LABEL = "pytest-benchmark JSON";
const AGGREGATES = ["min", "max", "mean", "stddev", "median"] as const;

export const pytestBenchmarkAdapter = benchmarkAdapter({
  ...pytestBenchmarkDescription,
  label: LABEL,
  read(document, out) {
    let samples = 0;
    const benchmarks = arrayAt(LABEL, "benchmarks", document.benchmarks);
    benchmarks.forEach((bench, b) => {
      const at = `benchmarks[${b}]`;
      if (!isPlainObject(bench) || !isPlainObject(bench.stats))
        throw expectationFailed(
          LABEL,
          `${at}.stats`,
          "an object",
          isPlainObject(bench) ? bench.stats : bench,
        );
      const scope =
        typeof bench.fullname === "string"
          ? bench.fullname
          : String(bench.name ?? `benchmark-${b}`);
      const iterations = typeof bench.stats.iterations === "number" ? bench.stats.iterations : null;
      const dims = {
        group: typeof bench.group === "string" ? bench.group : null,
        param: bench.param === null || bench.param === undefined ? null : String(bench.param),
      };
      const data =
        bench.stats.data === undefined
          ? null
          : arrayAt(LABEL, `${at}.stats.data`, bench.stats.data);
      data?.forEach((t, i) =>
        out.add({
          name: "wall_time",
          value: numberAt(LABEL, `${at}.stats.data[${i}]`, t),
          unit: "s",
          aggregation: "sample",
          scope,
          value_index: i,
          loop_count: iterations,
          dimensions: dims,
        }),
      );
      samples += data?.length ?? 0;
      if (!data)
        out.skip(
          "no_raw_data",
          "the file has summary statistics only; rerun with --benchmark-save-data to keep " +
            "every round",
        );
      for (const agg of AGGREGATES) {
        if (typeof bench.stats[agg] === "number")
          out.add({
            name: "wall_time",
            value: bench.stats[agg] as number,
            unit: "s",
            aggregation: agg,
            scope,
            dimensions: dims,
          });
      }
    });
    return {
      producer: "pytest-benchmark",
      producerVersion: typeof document.version === "string" ? document.version : null,
      summary: { benchmarks: benchmarks.length, samples },
    };
  },
});
