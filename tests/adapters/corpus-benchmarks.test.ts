/**
 * Every hyperfine, pyperf, Google Benchmark and pytest-benchmark file of the corpus,
 * imported through its adapter and checked against computations made independently from
 * the raw JSON: sample counts, hierarchy, and the producer's own stated mean/median
 * recomputed from the imported samples.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { corpusFiles, headOf, loadPayload, parseLoose } from "./corpus-files.ts";
import { extracted } from "./adapter-harness.ts";

interface Row {
  name: string;
  value: number;
  unit: string;
  aggregation: string;
  scope: string;
  is_warmup: boolean;
  worker_run_index: number | null;
  value_index: number | null;
  loop_count: number | null;
  dimensions: Record<string, unknown>;
}

function rowsOf(evidence: NormalizedEvidence): Row[] {
  const t = evidence.tables.measurements;
  return Array.from({ length: t.rowCount }, (_, i) => {
    const vi = t.column("value_int")[i] as number | null;
    const vf = t.column("value_float")[i] as number | null;
    expect((vi === null) !== (vf === null)).toBe(true); // exactly one value column set
    return {
      name: t.column("name")[i] as string,
      value: (vi ?? vf)!,
      unit: t.column("unit")[i] as string,
      aggregation: t.column("aggregation")[i] as string,
      scope: t.column("scope")[i] as string,
      is_warmup: t.column("is_warmup")[i] as boolean,
      worker_run_index: t.column("worker_run_index")[i] as number | null,
      value_index: t.column("value_index")[i] as number | null,
      loop_count: t.column("loop_count")[i] as number | null,
      dimensions: JSON.parse((t.column("dimensions_json")[i] as string | null) ?? "{}"),
    };
  });
}

async function extract(
  format: string,
  path: string,
  name: string,
): Promise<{ rows: Row[]; evidence: NormalizedEvidence }> {
  const bytes = loadPayload(path);
  const adapter = detectAdapter({ head: headOf(bytes), displayName: name })!;
  expect(adapter.name).toBe(format);
  const evidence = await extracted(adapter, {
    bytes,
    displayName: name,
    limits: DEFAULT_ADAPTER_LIMITS,
  });
  return { rows: rowsOf(evidence), evidence };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const close = (a: number, b: number, rel = 1e-12) =>
  expect(Math.abs(a - b)).toBeLessThanOrEqual(rel * Math.max(Math.abs(a), Math.abs(b)) + 1e-9);

describe("hyperfine corpus", () => {
  for (const file of corpusFiles("hyperfine")) {
    test(
      `${file.name}: every run time kept; mean ` + `and median recomputed match hyperfine's`,
      async () => {
        const { rows } = await extract("hyperfine", file.path, file.name);
        const doc = parseLoose(loadPayload(file.path)) as {
          results: {
            command: string;
            times: number[];
            mean: number;
            median: number;
            exit_codes?: number[];
          }[];
        };
        for (const r of doc.results) {
          const samples = rows.filter(
            (x) => x.scope === r.command && x.name === "wall_time" && x.aggregation === "sample",
          );
          expect(samples.length).toBe(r.times.length);
          expect(samples.every((s) => s.unit === "ns")).toBe(true);
          close(mean(samples.map((s) => s.value)) / 1e9, r.mean, 1e-9);
          close(median(samples.map((s) => s.value)) / 1e9, r.median, 1e-9);
          const stated = rows.find(
            (x) => x.scope === r.command && x.name === "wall_time" && x.aggregation === "mean",
          )!;
          close(stated.value / 1e9, r.mean);
          if (r.exit_codes)
            expect(
              rows
                .filter((x) => x.scope === r.command && x.name === "exit_code")
                .map((x) => x.value),
            ).toEqual(r.exit_codes);
        }
      },
    );
  }
});

describe("pyperf corpus", () => {
  for (const file of corpusFiles("pyperf")) {
    test(`${file.name}: values and warmups keep the worker/run/value/loop hierarchy`, async () => {
      const { rows, evidence } = await extract("pyperf", file.path, file.name);
      const doc = parseLoose(loadPayload(file.path)) as {
        metadata: Record<string, unknown>;
        benchmarks: {
          metadata?: Record<string, unknown>;
          runs: { values?: number[]; warmups?: [number, number][] }[];
        }[];
      };
      let values = 0;
      let warmups = 0;
      doc.benchmarks.forEach((b, bi) => {
        const scope = String(b.metadata?.name ?? doc.metadata.name ?? `benchmark-${bi}`);
        const raw = b.runs.flatMap((r) => r.values ?? []);
        const mine = rows.filter(
          (x) => x.scope === scope && !x.is_warmup && x.aggregation === "sample",
        );
        expect(mine.length).toBe(raw.length);
        const factor = doc.metadata.unit === "byte" || b.metadata?.unit === "byte" ? 1 : 1e9;
        close(mean(mine.map((x) => x.value)), mean(raw) * factor, 1e-9);
        expect(new Set(mine.map((x) => x.worker_run_index)).size).toBe(
          b.runs.filter((r) => (r.values ?? []).length > 0).length,
        );
        const loops = b.metadata?.loops ?? doc.metadata.loops;
        if (typeof loops === "number") expect(mine.every((x) => x.loop_count === loops)).toBe(true);
        const rawWarm = b.runs.flatMap((r) => r.warmups ?? []);
        const warm = rows.filter((x) => x.scope === scope && x.is_warmup);
        expect(warm.map((x) => x.loop_count)).toEqual(rawWarm.map((w) => w[0]));
        values += raw.length;
        warmups += rawWarm.length;
      });
      expect(evidence.summary).toMatchObject({ values, warmups });
    });
  }
});

describe("Google Benchmark corpus", () => {
  for (const file of corpusFiles("gbench")) {
    test(
      `${file.name}: repetitions and aggregates ` + `stay separate; stated mean recomputed`,
      async () => {
        const { rows } = await extract("gbench", file.path, file.name);
        const doc = parseLoose(loadPayload(file.path)) as { benchmarks: Record<string, unknown>[] };
        const iterations = doc.benchmarks.filter(
          (b) => b.run_type !== "aggregate" && !b.error_occurred && typeof b.real_time === "number",
        );
        expect(
          rows.filter((r) => r.aggregation === "sample" && r.name === "real_time").length,
        ).toBe(iterations.length);
        const aggregates = doc.benchmarks.filter(
          (b) => b.run_type === "aggregate" && typeof b.real_time === "number",
        );
        expect(
          rows.filter((r) => r.aggregation !== "sample" && r.name === "real_time").length,
        ).toBe(aggregates.length);
        for (const agg of aggregates.filter(
          (a) => a.aggregate_name === "mean" || a.aggregate_name === "median",
        )) {
          const reps = rows
            .filter(
              (r) =>
                r.aggregation === "sample" && r.name === "real_time" && r.scope === agg.run_name,
            )
            .map((r) => r.value);
          const recomputed = agg.aggregate_name === "mean" ? mean(reps) : median(reps);
          close(recomputed, (agg.real_time as number) * (agg.time_unit === "ns" ? 1 : NaN), 1e-9);
        }
        if (doc.benchmarks.some((b) => b.error_occurred))
          expect(rows.some((r) => r.scope === "BM_Error")).toBe(false);
      },
    );
  }
});

describe("pytest-benchmark corpus", () => {
  for (const file of corpusFiles("pytest-benchmark")) {
    test(`${file.name}: every round kept; stated mean and rounds recomputed`, async () => {
      const { rows } = await extract("pytest-benchmark", file.path, file.name);
      const doc = parseLoose(loadPayload(file.path)) as {
        benchmarks: { fullname: string; stats: { data: number[]; mean: number; rounds: number } }[];
      };
      for (const b of doc.benchmarks) {
        const samples = rows.filter((r) => r.scope === b.fullname && r.aggregation === "sample");
        expect(samples.length).toBe(b.stats.rounds);
        close(mean(samples.map((s) => s.value)) / 1e9, b.stats.mean, 1e-9);
      }
    });
  }
});

describe("flameox.benchmark-samples.v1", () => {
  const doc = {
    schema_version: "flameox.benchmark-samples.v1",
    producer: "metal-bench",
    producer_version: "0.3",
    benchmarks: [
      {
        name: "matmul",
        unit: "ms",
        measurement_clock: "gpu",
        synchronization: "command_buffer",
        device: { type: "gpu", index: 0 },
        warmups: [2.5],
        samples: [1.25, 1.5, 1.75],
      },
      { name: "matmul", unit: "ms", measurement_clock: "host", warmups: [], samples: [2, 2.25] },
    ],
  };
  const adapter = adapterByName("benchmark-samples")!;
  test("one measurement per raw sample; clocks stay distinct names; warmups flagged", async () => {
    const ev = await extracted(adapter, {
      bytes: new TextEncoder().encode(JSON.stringify(doc)),
      displayName: "b.json",
      limits: DEFAULT_ADAPTER_LIMITS,
    });
    const rows = rowsOf(ev);
    expect(rows.filter((r) => r.name === "gpu_time" && !r.is_warmup).map((r) => r.value)).toEqual([
      1.25e6, 1.5e6, 1.75e6,
    ]);
    expect(rows.filter((r) => r.name === "host_time").map((r) => r.value)).toEqual([2e6, 2.25e6]);
    expect(rows.filter((r) => r.is_warmup)).toHaveLength(1);
    expect(ev.producer).toBe("metal-bench");
  });
  test("a wrong schema_version or a non-numeric sample is a typed parse failure", async () => {
    const bad = (d: unknown) =>
      extracted(adapter, {
        bytes: new TextEncoder().encode(JSON.stringify(d)),
        displayName: "b.json",
        limits: DEFAULT_ADAPTER_LIMITS,
      });
    await expect(bad({ ...doc, schema_version: "v0" })).rejects.toThrow(/schema_version/);
    await expect(
      bad({ ...doc, benchmarks: [{ name: "x", unit: "ms", samples: [1, "2"] }] }),
    ).rejects.toThrow(/samples\[1\]/);
  });
  test("the row budget is enforced", async () => {
    await expect(
      extracted(adapter, {
        bytes: new TextEncoder().encode(JSON.stringify(doc)),
        displayName: "b.json",
        limits: { ...DEFAULT_ADAPTER_LIMITS, maxEvents: 3 },
      }),
    ).rejects.toThrow(/exceed the limit/);
  });
});
