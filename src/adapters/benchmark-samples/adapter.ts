/**
 * `flameox.benchmark-samples.v1`: a neutral JSON for producers flameox has no adapter for
 * (REFERENCE (d)): `{schema_version, producer, producer_version, benchmarks:[{name, unit,
 * measurement_clock, synchronization, device{type,index,stream}, warmups[], samples[]}]}`.
 * One measurement per raw sample. Time samples are named after their clock
 * (`host_time`, `cuda_event_time`, ...), so host and device clocks never mix in a comparison.
 */
import { expectationFailed, isPlainObject, parseFailed } from "../json-guard.ts";
import { arrayAt, benchmarkAdapter, numberAt } from "../benchmarks/benchmark-adapter.ts";
import { isTimeUnit } from "../benchmarks/units.ts";
import { BENCHMARK_SAMPLES_SCHEMA, benchmarkSamplesDescription } from "./description.ts";

const LABEL = "flameox.benchmark-samples.v1 JSON";

const text = (value: unknown): string | null =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : null;

export const benchmarkSamplesAdapter = benchmarkAdapter({
  ...benchmarkSamplesDescription,
  label: LABEL,
  read(document, out) {
    if (document.schema_version !== BENCHMARK_SAMPLES_SCHEMA) {
      throw parseFailed(
        LABEL,
        `expected schema_version to be ${JSON.stringify(BENCHMARK_SAMPLES_SCHEMA)} but ` +
          `found ${JSON.stringify(document.schema_version)}`,
      );
    }
    if (typeof document.producer !== "string")
      throw expectationFailed(LABEL, "producer", "a string", document.producer);
    let samples = 0;
    const benchmarks = arrayAt(LABEL, "benchmarks", document.benchmarks);
    benchmarks.forEach((bench, b) => {
      const at = `benchmarks[${b}]`;
      if (!isPlainObject(bench)) throw expectationFailed(LABEL, at, "an object", bench);
      if (typeof bench.name !== "string")
        throw expectationFailed(LABEL, `${at}.name`, "a string", bench.name);
      if (typeof bench.unit !== "string")
        throw expectationFailed(LABEL, `${at}.unit`, "a string", bench.unit);
      const clock = typeof bench.measurement_clock === "string" ? bench.measurement_clock : "host";
      const device = isPlainObject(bench.device) ? bench.device : {};
      const name = isTimeUnit(bench.unit)
        ? `${clock}_time`
        : typeof bench.metric === "string"
          ? bench.metric
          : "value";
      const dims = {
        measurement_clock: clock,
        synchronization: text(bench.synchronization),
        "device.type": text(device.type),
        "device.index": text(device.index),
        "device.stream": text(device.stream),
      };
      const base = {
        name,
        unit: bench.unit,
        aggregation: "sample",
        scope: bench.name,
        dimensions: dims,
      };
      arrayAt(LABEL, `${at}.warmups`, bench.warmups ?? []).forEach((v, i) =>
        out.add({
          ...base,
          is_warmup: true,
          value_index: i,
          value: numberAt(LABEL, `${at}.warmups[${i}]`, v),
        }),
      );
      const values = arrayAt(LABEL, `${at}.samples`, bench.samples);
      values.forEach((v, i) =>
        out.add({ ...base, value_index: i, value: numberAt(LABEL, `${at}.samples[${i}]`, v) }),
      );
      samples += values.length;
    });
    return {
      producer: document.producer,
      producerVersion: text(document.producer_version),
      summary: { benchmarks: benchmarks.length, samples },
    };
  },
});
