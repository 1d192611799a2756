/**
 * pyperf JSON (BenchmarkSuite, file version 1.0; also the older `perf` package). Each
 * benchmark has runs; each run is one worker process with `warmups` as [loops, value]
 * pairs and `values`, already divided by loops × inner_loops. Metadata inherits
 * suite → benchmark → run. Rows keep the hierarchy: worker_id and worker_run_index name
 * the run, value_index the position within it, loop_count the loops, is_warmup the kind.
 * A run without values (loop calibration) is phase `calibration`. Benchmark tags become the
 * `tags` dimension.
 */
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import { arrayAt, benchmarkAdapter, numberAt } from "../benchmarks/benchmark-adapter.ts";
import type { MeasurementWriter } from "../benchmarks/measurement-writer.ts";
import { pyperfDescription } from "./description.ts";

const LABEL = "pyperf JSON";
type Meta = Record<string, unknown>;

const meta = (value: unknown): Meta => (isPlainObject(value) ? value : {});

function readBenchmark(
  bench: unknown,
  b: number,
  suite: Meta,
  out: MeasurementWriter,
): { name: string; values: number; warmups: number } {
  if (!isPlainObject(bench)) throw expectationFailed(LABEL, `benchmarks[${b}]`, "an object", bench);
  const benchMeta = { ...suite, ...meta(bench.metadata) };
  const scope = typeof benchMeta.name === "string" ? benchMeta.name : `benchmark-${b}`;
  const unit = typeof benchMeta.unit === "string" ? benchMeta.unit : "second";
  const name = unit === "byte" ? "memory_usage" : "wall_time";
  // pyperf's benchmark tags (`pyperf compare_to` groups by them) are kept as one dimension,
  // comma-separated in the order written; a non-list or non-string tag is not a tag.
  const tagList = Array.isArray(benchMeta.tags)
    ? benchMeta.tags.filter((t): t is string => typeof t === "string")
    : [];
  const tags: Record<string, string> = tagList.length > 0 ? { tags: tagList.join(",") } : {};
  let values = 0;
  let warmups = 0;
  arrayAt(LABEL, `benchmarks[${b}].runs`, bench.runs).forEach((run, r) => {
    const at = `benchmarks[${b}].runs[${r}]`;
    if (!isPlainObject(run)) throw expectationFailed(LABEL, at, "an object", run);
    const runMeta = { ...benchMeta, ...meta(run.metadata) };
    const loops = typeof runMeta.loops === "number" ? runMeta.loops : null;
    const inner = typeof runMeta.inner_loops === "number" ? runMeta.inner_loops : null;
    const runValues = run.values === undefined ? [] : arrayAt(LABEL, `${at}.values`, run.values);
    const phase = runValues.length === 0 ? "calibration" : null;
    const base = {
      name,
      unit,
      scope,
      worker_id: `run-${r}`,
      worker_run_index: r,
      phase,
      dimensions: { inner_loops: inner, ...tags },
    };
    (run.warmups === undefined ? [] : arrayAt(LABEL, `${at}.warmups`, run.warmups)).forEach(
      (pair, i) => {
        if (!Array.isArray(pair) || pair.length !== 2)
          throw expectationFailed(LABEL, `${at}.warmups[${i}]`, "a [loops, value] pair", pair);
        out.add({
          ...base,
          aggregation: "sample",
          is_warmup: true,
          value_index: i,
          loop_count: numberAt(LABEL, `${at}.warmups[${i}][0]`, pair[0]),
          value: numberAt(LABEL, `${at}.warmups[${i}][1]`, pair[1]),
        });
        warmups++;
      },
    );
    runValues.forEach((v, i) => {
      out.add({
        ...base,
        aggregation: "sample",
        is_warmup: false,
        value_index: i,
        loop_count: loops,
        value: numberAt(LABEL, `${at}.values[${i}]`, v),
      });
      values++;
    });
  });
  if (values === 0)
    out.skip("no_values", `${scope}: no measured values (only warmups or calibration)`);
  return { name: scope, values, warmups };
}

export const pyperfAdapter = benchmarkAdapter({
  ...pyperfDescription,
  label: LABEL,
  read(document, out) {
    const suite = meta(document.metadata);
    const benchmarks = arrayAt(LABEL, "benchmarks", document.benchmarks).map((bench, b) =>
      readBenchmark(bench, b, suite, out),
    );
    const version = typeof suite.perf_version === "string" ? suite.perf_version : null;
    return {
      producer: "pyperf",
      producerVersion: version,
      summary: {
        file_version: typeof document.version === "string" ? document.version : null,
        benchmarks: benchmarks.length,
        values: benchmarks.reduce((a, x) => a + x.values, 0),
        warmups: benchmarks.reduce((a, x) => a + x.warmups, 0),
      },
    };
  },
});
