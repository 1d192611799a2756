/**
 * NVBench JSON: every corpus file imported and checked against the raw JSON walked here
 * independently (states, skipped states, every numeric summary datum, sample counts and
 * GPU means per state); hand-made cases for sidecars, axes and each refusal.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { expectFailure, extractWith, limitation, extracted } from "./adapter-harness.ts";
import { corpusFiles, headOf, loadPayload, parseLoose } from "./corpus-files.ts";

const adapter = adapterByName("nvbench")!;

interface Row {
  name: string;
  value: number;
  unit: string;
  aggregation: string;
  scope: string;
  dimensions: Record<string, unknown>;
}

function rowsOf(evidence: NormalizedEvidence): Row[] {
  const t = evidence.tables.measurements;
  return Array.from({ length: t.rowCount }, (_, i) => ({
    name: t.column("name")[i] as string,
    value: ((t.column("value_int")[i] as number | null) ??
      (t.column("value_float")[i] as number | null))!,
    unit: t.column("unit")[i] as string,
    aggregation: t.column("aggregation")[i] as string,
    scope: t.column("scope")[i] as string,
    dimensions: JSON.parse((t.column("dimensions_json")[i] as string | null) ?? "{}"),
  }));
}

interface RawDatum {
  name: string;
  type: string;
  value: string;
}
interface RawState {
  name: string;
  device: number;
  is_skipped: boolean;
  axis_values: { name: string; type: string; value: string }[] | null;
  summaries: { tag: string; hint?: string; data: RawDatum[] }[] | null;
}
interface RawDoc {
  meta: { version: { nvbench: { string: string } } };
  devices: { id: number; name: string }[];
  benchmarks: { name: string; states: RawState[] }[];
}

const close = (a: number, b: number) =>
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-12 * Math.max(Math.abs(a), Math.abs(b)));

describe("NVBench corpus", () => {
  const files = corpusFiles("nvbench");
  test("the corpus has NVBench files", () => expect(files.length).toBeGreaterThan(0));
  for (const file of files) {
    test(
      `${file.name}: every state and numeric summary imported; counts and means equal the ` +
        `JSON's`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(detectAdapter({ head: headOf(bytes), displayName: file.name })?.name).toBe(
          "nvbench",
        );
        const evidence = await extracted(adapter, {
          bytes,
          displayName: file.name,
          limits: DEFAULT_ADAPTER_LIMITS,
        });
        const rows = rowsOf(evidence);
        const doc = parseLoose(bytes) as RawDoc;
        const states = doc.benchmarks.flatMap((b) => b.states.map((s) => ({ bench: b.name, s })));
        const skipped = states.filter(({ s }) => s.is_skipped);
        const numeric = states.flatMap(({ s }) =>
          (s.summaries ?? []).flatMap((m) =>
            m.data.filter((d) => d.type === "int64" || d.type === "float64"),
          ),
        );
        expect(evidence.producerVersion).toBe(doc.meta.version.nvbench.string);
        expect(evidence.summary).toMatchObject({
          benchmarks: doc.benchmarks.length,
          states: states.length,
          skipped_states: skipped.length,
          measurements: numeric.length,
        });
        expect(rows.length).toBe(numeric.length);
        expect(limitation(evidence, "state_skipped")).toBe(skipped.length);
        expect(skipped.length).toBeGreaterThan(0);
        for (const { bench, s } of states) {
          const mine = rows.filter((r) => r.scope === `${bench}/${s.name}`);
          if (s.is_skipped) {
            expect(mine).toEqual([]);
            continue;
          }
          const datum = (tag: string) =>
            Number(
              s.summaries!.find((m) => m.tag === tag)?.data.find((d) => d.name === "value")?.value,
            );
          const row = (name: string) => mine.find((r) => r.name === name)!;
          expect(row("nv/cold/sample_size")).toMatchObject({
            value: datum("nv/cold/sample_size"),
            unit: "count",
            aggregation: "count",
          });
          expect(row("nv/batch/sample_size").value).toBe(datum("nv/batch/sample_size"));
          // Seconds in the JSON, ns in the table.
          expect(row("nv/cold/time/gpu/mean")).toMatchObject({ unit: "ns", aggregation: "mean" });
          close(row("nv/cold/time/gpu/mean").value, datum("nv/cold/time/gpu/mean") * 1e9);
          close(row("nv/cold/time/cpu/mean").value, datum("nv/cold/time/cpu/mean") * 1e9);
          expect(row("nv/cold/time/gpu/stdev/relative")).toMatchObject({
            unit: "ratio",
            aggregation: "cv",
            value: datum("nv/cold/time/gpu/stdev/relative"),
          });
          const dims = row("nv/cold/time/gpu/mean").dimensions;
          expect(dims.device).toBe(s.device);
          expect(dims.device_name).toBe(doc.devices.find((d) => d.id === s.device)!.name);
          for (const axis of s.axis_values ?? [])
            expect(dims[`axis.${axis.name}`]).toBe(
              axis.type === "string" ? axis.value : Number(axis.value),
            );
          expect(mine.length).toBe((s.summaries ?? []).reduce((n, m) => n + m.data.length, 0));
        }
      },
    );
  }
});

const state = (summaries: unknown, extra: Record<string, unknown> = {}) => ({
  name: "Device=0 T=F32",
  device: 0,
  axis_values: [
    { name: "T", type: "type", value: "F32" },
    { name: "Elements", type: "int64", value: "1024" },
  ],
  summaries,
  is_skipped: false,
  ...extra,
});
const doc = (states: unknown[]) => ({
  meta: { version: { nvbench: { string: "0.2.0" } } },
  devices: [{ id: 0, name: "H100" }],
  benchmarks: [{ name: "copy", states }],
});
const summary = (tag: string, hint: string, data: unknown[]) => ({ tag, hint, data });

describe("NVBench cases", () => {
  test(
    "a declared sidecar is returned as a companion file with its state as context, never read " +
      "by the adapter; the summaries still import",
    async () => {
      const evidence = await extractWith(
        adapter,
        doc([
          state([
            summary("nv/cold/time/gpu/mean", "duration", [
              { name: "value", type: "float64", value: "0.5" },
            ]),
            summary("nv/json/bin:nv/cold/sample_times", "file/sample_times", [
              { name: "filename", type: "string", value: "result.json-bin/0.bin" },
              { name: "size", type: "int64", value: "1000" },
            ]),
            summary("nv/json/freqs-bin:nv/cold/sample_freqs", "file/sample_freqs", [
              { name: "filename", type: "string", value: "result.json-freqs-bin/0.bin" },
              { name: "size", type: "int64", value: "1000" },
            ]),
          ]),
        ]),
      );
      const rows = rowsOf(evidence);
      expect(rows.map((r) => [r.name, r.value, r.aggregation, r.scope])).toEqual([
        ["nv/cold/time/gpu/mean", 5e8, "mean", "copy/Device=0 T=F32"],
      ]);
      expect(rows[0]!.dimensions).toEqual({
        device: 0,
        device_name: "H100",
        "axis.T": "F32",
        "axis.Elements": 1024,
        native_unit: "s",
      });
      expect(evidence.limitations).toEqual([]);
      const dimensions = { device: 0, device_name: "H100", "axis.T": "F32", "axis.Elements": 1024 };
      expect(evidence.companions).toEqual([
        {
          filename: "result.json-bin/0.bin",
          byte_length: 4000,
          adapter: "nvbench-samples",
          context: {
            name: "nv/cold/sample_times",
            unit: "s",
            scope: "copy/Device=0 T=F32",
            samples: 1000,
            dimensions,
          },
        },
        {
          filename: "result.json-freqs-bin/0.bin",
          byte_length: 4000,
          adapter: "nvbench-samples",
          context: {
            name: "nv/cold/sample_freqs",
            unit: "hz",
            scope: "copy/Device=0 T=F32",
            samples: 1000,
            dimensions,
          },
        },
      ]);
      expect(evidence.summary.sidecars_declared).toBe(2);
    },
  );

  test(
    "a sidecar declaration without a filename or a usable size is named in a limitation, not " +
      "returned",
    async () => {
      const evidence = await extractWith(
        adapter,
        doc([
          state([
            summary("nv/json/bin:nv/cold/sample_times", "file/sample_times", [
              { name: "filename", type: "string", value: "result.json-bin/0.bin" },
              { name: "size", type: "int64", value: "-3" },
            ]),
            summary("nv/json/bin:nv/cold/sample_times", "file/sample_times", [
              { name: "size", type: "int64", value: "3" },
            ]),
          ]),
        ]),
      );
      expect(evidence.companions).toBeUndefined();
      expect(limitation(evidence, "sidecar_unusable")).toBe(2);
    },
  );

  test(
    "later NVBench statistics: quartiles as percentiles, absolute stdev and IQR, clock rates " +
      "in hz",
    async () => {
      const datum = (value: string) => [{ name: "value", type: "float64", value }];
      const evidence = await extractWith(
        adapter,
        doc([
          state([
            summary("nv/cold/time/gpu/q1", "duration", datum("0.001")),
            summary("nv/cold/time/gpu/median", "duration", datum("0.002")),
            summary("nv/cold/time/gpu/q3", "duration", datum("0.003")),
            summary("nv/cold/time/gpu/stdev/absolute", "duration", datum("0.0001")),
            summary("nv/cold/time/gpu/iqr/relative", "percentage", datum("0.25")),
            summary("nv/cold/sm_clock_rate/mean", "frequency", datum("1980000000")),
          ]),
        ]),
      );
      expect(
        rowsOf(evidence).map((r) => [
          r.name.split("/").slice(-2).join("/"),
          r.aggregation,
          r.unit,
          r.value,
        ]),
      ).toEqual([
        ["gpu/q1", "p25", "ns", 1e6],
        ["gpu/median", "median", "ns", 2e6],
        ["gpu/q3", "p75", "ns", 3e6],
        ["stdev/absolute", "stddev", "ns", 1e5],
        ["iqr/relative", "iqr_relative", "ratio", 0.25],
        ["sm_clock_rate/mean", "mean", "hz", 1.98e9],
      ]);
    },
  );

  test("non-numeric summary data are counted, not imported", async () => {
    const evidence = await extractWith(
      adapter,
      doc([
        state([
          summary("nv/custom/label", "text", [{ name: "value", type: "string", value: "fast" }]),
        ]),
      ]),
    );
    expect(rowsOf(evidence)).toEqual([]);
    expect(limitation(evidence, "non_numeric_summary")).toBe(1);
  });

  test("malformed files fail with typed errors naming the field", async () => {
    expect(await expectFailure(adapter, { benchmarks: {} }, "ARTIFACT_PARSE_FAILED")).toContain(
      "benchmarks",
    );
    expect(await expectFailure(adapter, doc([{ device: 0 }]), "ARTIFACT_PARSE_FAILED")).toContain(
      "benchmarks[0].states[0].name",
    );
    expect(await expectFailure(adapter, doc([state("x")]), "ARTIFACT_PARSE_FAILED")).toContain(
      "benchmarks[0].states[0].summaries",
    );
    expect(
      await expectFailure(
        adapter,
        doc([
          state([
            summary("nv/cold/time/gpu/mean", "duration", [
              { name: "value", type: "float64", value: "fast" },
            ]),
          ]),
        ]),
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("summaries[0].data[0].value");
    expect(
      await expectFailure(
        adapter,
        doc([state([{ hint: "duration", data: [] }])]),
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("summaries[0].tag");
    expect(await expectFailure(adapter, "[1, 2]", "ARTIFACT_PARSE_FAILED")).toContain("document");
    expect(await expectFailure(adapter, '{"benchmarks": [', "ARTIFACT_PARSE_FAILED")).toBeTruthy();
    const many = doc([
      state([
        summary("nv/cold/time/gpu/mean", "duration", [
          { name: "value", type: "float64", value: "1" },
          { name: "p50", type: "float64", value: "1" },
        ]),
      ]),
    ]);
    await expectFailure(adapter, many, "ARTIFACT_TOO_LARGE", { maxEvents: 1 });
  });

  test(
    "detection: NVBench's version block, not Google Benchmark's or pytest-benchmark's " + "shapes",
    () => {
      expect(adapter.detect({ head: JSON.stringify(doc([])), displayName: "x" })).toBeGreaterThan(
        0.9,
      );
      expect(
        adapter.detect({
          head: JSON.stringify({ context: {}, benchmarks: [{ name: "a", real_time: 1 }] }),
          displayName: "x",
        }),
      ).toBe(0);
      expect(
        adapter.detect({
          head: JSON.stringify({ machine_info: {}, benchmarks: [] }),
          displayName: "x",
        }),
      ).toBe(0);
    },
  );
});

describe("nvbench-samples (a sidecar read as its JSON declared it)", () => {
  const samples = adapterByName("nvbench-samples")!;
  const context = {
    name: "nv/cold/sample_times",
    unit: "s",
    scope: "copy/Device=0",
    samples: 3,
    dimensions: { device: 0 },
  };
  const read = async (bytes: Uint8Array, ctx: Record<string, unknown> | null) =>
    await extracted(samples, {
      bytes,
      displayName: "0.bin",
      limits: DEFAULT_ADAPTER_LIMITS,
      context: ctx,
    });

  test(
    "float32 little-endian values become sample rows in order; a NaN is skipped and counted; " +
      "never detected",
    async () => {
      const bytes = new Uint8Array(12);
      const view = new DataView(bytes.buffer);
      [2.5e-5, Number.NaN, 1e-5].forEach((v, i) => view.setFloat32(i * 4, v, true));
      const evidence = await read(bytes, context);
      expect(
        rowsOf(evidence).map((r) => [r.name, r.value, r.unit, r.aggregation, r.scope]),
      ).toEqual([
        ["nv/cold/sample_times", Math.fround(2.5e-5) * 1e9, "ns", "sample", "copy/Device=0"],
        ["nv/cold/sample_times", Math.fround(1e-5) * 1e9, "ns", "sample", "copy/Device=0"],
      ]);
      expect(limitation(evidence, "non_finite_samples")).toBe(1);
      expect(samples.detect({ head: "\u0000\u0000", displayName: "0.bin" })).toBe(0);
    },
  );

  test(
    "without the JSON's declaration, or with another length than declared, it refuses with a " +
      "typed error",
    async () => {
      for (const [bytes, ctx, text] of [
        [new Uint8Array(12), null, "read only as declared"],
        [
          new Uint8Array(8),
          context,
          "declares 3 float32 samples (12 bytes) but the file holds 8 bytes",
        ],
      ] as const) {
        let message = "";
        try {
          await read(bytes, ctx);
        } catch (error) {
          message = (error as Error).message;
          expect((error as { code: string }).code).toBe("ARTIFACT_PARSE_FAILED");
        }
        expect(message).toContain(text);
      }
    },
  );
});
