/**
 * `nsys stats --format csv` reports. The fixtures (fixtures/nsys-stats/, README there) use
 * the header rows Nsight Systems writes. Header variants, as found in `nsys stats` output
 * kept in public repositories:
 *   cuda_gpu_kern_sum
 *   `Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name`
 *   cuda_api_sum       `… ,Num Calls, …,Name` (osrt_sum writes the same header)
 *   cuda_gpu_mem_time_sum `…,Count,…,Operation`;  nvtx_sum `…,Instances,…,StdDev (ns),Style,Range`
 *   2021 layout (gpukernsum): `Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name`
 *   cuda_gpu_trace
 *   `Start (ns),Duration (ns),CorrId,GrdX,…,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),
 *                       Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,[GreenCtx,]Strm,Name`
 * and `nsys stats` printing "Processing [x.sqlite] with [cuda_gpu_trace.py]..." and NOTICE
 * lines before the header when its output is captured from stdout.
 *
 * Every figure is checked against the raw CSV read here by a separate, minimal RFC 4180
 * splitter (not the adapter's parser), and the kernel summary against the trace it summarizes.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { tableOfBatches } from "./batch-tables.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import type { ColumnBatch } from "../../src/domain/column-batch.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { REPO } from "../helpers.ts";
import { corpusFile, corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { extracted } from "./adapter-harness.ts";

const DIR = join(REPO, "fixtures", "nsys-stats");
const bytesOf = (name: string) => new Uint8Array(readFileSync(join(DIR, name)));

/** A minimal RFC 4180 reader for checking: quoted cells may hold commas and doubled quotes. */
function rawRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const cells: string[] = [];
    let cell = "";
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') (cell += '"'), i++;
        else if (c === '"') quoted = false;
        else cell += c;
      } else if (c === '"') quoted = true;
      else if (c === ",") cells.push(cell), (cell = "");
      else cell += c;
    }
    cells.push(cell);
    rows.push(cells);
  }
  return rows;
}

function table(name: string): Record<string, string>[] {
  const [header, ...rows] = rawRows(readFileSync(join(DIR, name), "utf8"));
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

async function extract(
  bytes: Uint8Array,
  displayName: string,
  expected: string,
): Promise<NormalizedEvidence> {
  const adapter = detectAdapter({ head: headOf(bytes), displayName });
  expect(adapter?.name).toBe(expected);
  // The header alone decides: the file name is not needed to recognise the report.
  expect(detectAdapter({ head: headOf(bytes), displayName: "upload" })?.name).toBe(expected);
  return await extracted(adapter!, { bytes, displayName, limits: DEFAULT_ADAPTER_LIMITS });
}

async function parseError(run: Promise<unknown>): Promise<FlameoxError> {
  try {
    await run;
  } catch (error) {
    if (error instanceof FlameoxError) return error;
    throw error;
  }
  throw new Error("expected a typed error");
}

describe("cuda_gpu_trace", async () => {
  const raw = table("report1_cuda_gpu_trace.csv");
  const evidence = await extract(
    bytesOf("report1_cuda_gpu_trace.csv"),
    "report1_cuda_gpu_trace.csv",
    "nsys-stats-trace-csv",
  );
  const events = rowsOf(evidence.tables.trace_events);

  test("every row is one event on its device/stream track, with start and duration in ns", () => {
    expect(events.length).toBe(raw.length);
    const expected = raw
      .map((r) => [
        `gpu0:ctx${r.Ctx}.stream${r.Strm}`,
        r.Name,
        BigInt(r["Start (ns)"]!),
        Number(r["Duration (ns)"]),
      ])
      .sort(
        (a, b) =>
          String(a[0]).localeCompare(String(b[0])) || Number((a[2] as bigint) - (b[2] as bigint)),
      );
    expect(events.map((e) => [e.track_id, e.name, e.ts_ns, e.dur_ns])).toEqual(expected);
    const tracks = rowsOf(evidence.tables.tracks);
    expect(tracks.map((t) => [t.track_id, t.pid, t.process_name, t.thread_name])).toEqual([
      ["gpu0:ctx1.stream13", "gpu0", "GPU 0: NVIDIA H100 80GB HBM3", "stream 13 (context 1)"],
      ["gpu0:ctx1.stream7", "gpu0", "GPU 0: NVIDIA H100 80GB HBM3", "stream 7 (context 1)"],
    ]);
  });

  test(
    "kernel time per name equals the sum of the raw durations; quoted template names " +
      "stay whole",
    () => {
      const fromRaw = new Map<string, number>();
      for (const r of raw)
        if (r.GrdX !== "")
          fromRaw.set(r.Name!, (fromRaw.get(r.Name!) ?? 0) + Number(r["Duration (ns)"]));
      const fromEvents = new Map<string, number>();
      for (const e of events)
        if (e.category === "cuda_kernel")
          fromEvents.set(
            e.name as string,
            (fromEvents.get(e.name as string) ?? 0) + Number(e.dur_ns),
          );
      expect([...fromEvents].sort()).toEqual([...fromRaw].sort());
      expect(
        fromEvents.has("void gemm_kernel<float, 128>(const float *, const float *, float *, int)"),
      ).toBe(true);
      // Memory operations are their own categories, with the size as the report wrote it.
      const memcpy = events.filter((e) => e.category === "cuda_memcpy");
      expect(memcpy.length).toBe(raw.filter((r) => r.Name!.startsWith("[CUDA memcpy")).length);
      expect(JSON.parse(memcpy[0]!.args_json as string)).toMatchObject({
        size_unit: "MB",
        src_kind: expect.any(String),
      });
      expect(events.filter((e) => e.category === "cuda_memset").length).toBe(
        raw.filter((r) => r.Name === "[CUDA memset]").length,
      );
      // Correlation ids survive, so launches in another export can be joined to these kernels.
      expect(events.map((e) => JSON.parse(e.args_json as string).correlation_id).sort()).toEqual(
        raw.map((r) => Number(r.CorrId)).sort(),
      );
    },
  );

  test(
    "it agrees with cuda_gpu_kern_sum of the same capture (totals, counts, min, max " +
      "per kernel)",
    () => {
      const sum = table("report1_cuda_gpu_kern_sum.csv");
      for (const row of sum) {
        const mine = events.filter((e) => e.name === row.Name).map((e) => Number(e.dur_ns));
        expect([
          row.Name,
          mine.reduce((a, b) => a + b, 0),
          mine.length,
          Math.min(...mine),
          Math.max(...mine),
        ]).toEqual([
          row.Name,
          Number(row["Total Time (ns)"]),
          Number(row.Instances),
          Number(row["Min (ns)"]),
          Number(row["Max (ns)"]),
        ]);
      }
    },
  );

  test(
    "the streaming entry point writes the same rows, from chunks of any size; a stdout " +
      "preamble is skipped",
    async () => {
      const text =
        `NOTICE: Existing SQLite export found: report1.sqlite\n\nProcessing [report1.sqlite] ` +
        `with [cuda_gpu_trace.py]... ` +
        `\n${readFileSync(join(DIR, "report1_cuda_gpu_trace.csv"), "utf8")}`;
      const bytes = new TextEncoder().encode(text);
      const batches: ColumnBatch[] = [];
      async function* chunks() {
        for (let i = 0; i < bytes.length; i += 333) yield bytes.subarray(i, i + 333);
      }
      const adapter = adapterByName("nsys-stats-trace-csv")!;
      const streamed = await adapter.extractStream!({
        chunks: chunks(),
        displayName: "stdout.txt",
        limits: DEFAULT_ADAPTER_LIMITS,
        sink: { writeBatch: async (b) => void batches.push(b) },
      });
      expect(streamed.streamed).toEqual(["trace_events"]);
      expect(rowsOf(tableOfBatches(batches, "trace_events"))).toEqual(events);
      expect(
        rowsOf(
          (
            await extracted(adapter, {
              bytes,
              displayName: "stdout.txt",
              limits: DEFAULT_ADAPTER_LIMITS,
            })
          ).tables.trace_events,
        ),
      ).toEqual(events);
    },
  );

  test("older layouts and other time units: no GreenCtx, Start (us)", async () => {
    const csv =
      "Start (us),Duration (us),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem " +
      "(MB),DymSMem (MB),Bytes (MB),Throughput " +
      "(MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n1.5,0.25,9,1,1,1,32,1,1,8,0,0,,,,,Tesla " +
      'V100 (1),1,7,"k<int, 2>(int)"\n';
    const rows = rowsOf(
      (await extract(new TextEncoder().encode(csv), "old.csv", "nsys-stats-trace-csv")).tables
        .trace_events,
    );
    expect(rows.map((r) => [r.track_id, r.name, r.ts_ns, r.dur_ns])).toEqual([
      ["gpu1:ctx1.stream7", "k<int, 2>(int)", 1500n, 250],
    ]);
  });

  test(
    "a row with another number of cells, or a duration that is not a number, is a typed parse " +
      "failure naming its line",
    async () => {
      const header = readFileSync(join(DIR, "report1_cuda_gpu_trace.csv"), "utf8").split("\n")[0];
      const short = await parseError(
        extract(new TextEncoder().encode(`${header}\n1,2,3\n`), "t.csv", "nsys-stats-trace-csv"),
      );
      expect(short.code).toBe("ARTIFACT_PARSE_FAILED");
      expect(short.message).toContain("line 2");
      const bad = await parseError(
        extract(
          new TextEncoder().encode(`${header}\n1,x,3,,,,,,,,,,,,,,GPU (0),1,,7,k\n`),
          "t.csv",
          "nsys-stats-trace-csv",
        ),
      );
      expect([bad.code, bad.message.includes("line 2")]).toEqual(["ARTIFACT_PARSE_FAILED", true]);
      const many = await parseError(
        extracted(adapterByName("nsys-stats-trace-csv")!, {
          bytes: bytesOf("report1_cuda_gpu_trace.csv"),
          displayName: "t.csv",
          limits: { ...DEFAULT_ADAPTER_LIMITS, maxEvents: 5 },
        }),
      );
      expect(many.code).toBe("ARTIFACT_TOO_LARGE");
    },
  );
});

describe("summary reports", () => {
  const STATS: [string, string][] = [
    ["Time (%)", "share"],
    ["Total Time (ns)", "total"],
    ["Avg (ns)", "mean"],
    ["Med (ns)", "median"],
    ["Min (ns)", "min"],
    ["Max (ns)", "max"],
    ["StdDev (ns)", "stddev"],
  ];

  for (const [file, report, count, nameColumn] of [
    ["report1_cuda_gpu_kern_sum.csv", "cuda_gpu_kern_sum", "Instances", "Name"],
    ["report1_cuda_api_sum.csv", "cuda_api_sum", "Num Calls", "Name"],
    ["report1_osrt_sum.csv", "osrt_sum", "Num Calls", "Name"],
    ["report1_cuda_gpu_mem_time_sum.csv", "cuda_gpu_mem_time_sum", "Count", "Operation"],
    ["report1_nvtx_sum.csv", "nvtx_sum", "Instances", "Range"],
  ] as const) {
    test(
      `${report}: one measurement per name ` + `and statistic, equal to the CSV's cells`,
      async () => {
        const evidence = await extract(bytesOf(file), file, "nsys-stats-summary-csv");
        expect(evidence.summary.report).toBe(report);
        const rows = rowsOf(evidence.tables.measurements);
        const raw = table(file);
        const expected = raw.flatMap((r) => [
          ...STATS.map(([column, aggregation]) => [
            r[nameColumn],
            report,
            aggregation,
            Number(r[column]),
            aggregation === "share" ? "percent" : "ns",
          ]),
          [r[nameColumn], report, "count", Number(r[count]), "count"],
        ]);
        const value = (m: Record<string, unknown>) => (m.value_int ?? m.value_float) as number;
        expect(
          rows.map((m) => [m.name, m.scope, m.aggregation, Number(value(m)), m.unit]).sort(),
        ).toEqual(expected.sort());
        expect(evidence.limitations.map((l) => l.code)).toEqual(["aggregates_only"]);
        if (report === "nvtx_sum")
          expect(JSON.parse(rows[0]!.dimensions_json as string)).toEqual({
            report,
            style: "PushPop",
          });
      },
    );
  }

  test(
    "the streaming entry point gives the same measurements, from chunks of any " + "size",
    async () => {
      const bytes = bytesOf("report1_nvtx_sum.csv");
      async function* chunks() {
        for (let i = 0; i < bytes.length; i += 17) yield bytes.subarray(i, i + 17);
      }
      const adapter = adapterByName("nsys-stats-summary-csv")!;
      const streamed = await adapter.extractStream!({
        chunks: chunks(),
        displayName: "report1_nvtx_sum.csv",
        limits: DEFAULT_ADAPTER_LIMITS,
        sink: { writeBatch: async () => {} },
      });
      const whole = await extracted(adapter, {
        bytes,
        displayName: "report1_nvtx_sum.csv",
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      expect(rowsOf(streamed.tables.measurements!)).toEqual(rowsOf(whole.tables.measurements));
      expect([streamed.summary, streamed.limitations]).toEqual([whole.summary, whole.limitations]);
    },
  );

  test(
    "the 2021 layout (Time(%), Average, Minimum, Maximum) reads the same figures as the " +
      "current kernel summary",
    async () => {
      const old = rowsOf(
        (
          await extract(
            bytesOf("report1_gpukernsum.csv"),
            "report1_gpukernsum.csv",
            "nsys-stats-summary-csv",
          )
        ).tables.measurements,
      );
      const now = rowsOf(
        (
          await extract(
            bytesOf("report1_cuda_gpu_kern_sum.csv"),
            "report1_cuda_gpu_kern_sum.csv",
            "nsys-stats-summary-csv",
          )
        ).tables.measurements,
      );
      const key = (m: Record<string, unknown>) =>
        JSON.stringify([m.name, m.scope, m.aggregation, m.value_int ?? m.value_float]);
      const current = new Set(now.map(key));
      // share, total, count, mean, min, max per kernel: no median or spread in 2021
      expect(old.length).toBe(3 * 6);
      expect(old.filter((m) => !current.has(key(m)))).toEqual([]);
    },
  );

  test(
    "a header two reports share, with a file name that does not say which, is scoped to both " +
      "and says so",
    async () => {
      const evidence = await extract(
        bytesOf("report1_osrt_sum.csv"),
        "summary.csv",
        "nsys-stats-summary-csv",
      );
      expect(evidence.summary.report).toBe("cuda_api_sum|osrt_sum");
      expect(evidence.limitations.map((l) => l.code)).toEqual([
        "aggregates_only",
        "report_ambiguous",
      ]);
    },
  );
});

describe("the corpus file filed as an nsys stats CSV", () => {
  // pipit's golden events table (pipit/tests/data/cloverleaf-nsys/cloverleaf_gpu_trace.csv): the
  // DataFrame pipit builds from the SQLite export, written with pandas (Enter/Leave rows,
  // _matching_event, _depth, _parent, _children). It is not `nsys stats` output, so no adapter
  // claims it and the trace adapter, when named, refuses it rather than guessing.
  const file = corpusFile("nsys-stats-csv", "pipit-nsys-cloverleaf_gpu_trace.csv");
  const bytes = loadPayload(file.path);

  test("it is not detected as any format", () => {
    expect(headOf(bytes).split("\n")[0]).toBe(
      "Name,streamId,type,bytes,Trace Type,Event Type,Timestamp " +
        "(ns),_matching_event,_matching_timestamp,_depth,_parent,_children",
    );
    expect(detectAdapter({ head: headOf(bytes), displayName: file.name })).toBeNull();
  });

  // What it is good for: pipit's own reading of the CloverLeaf SQLite export (external lane),
  // an independent account of the same kernels and copies the nsys-sqlite adapter imports.
  const sqlite = corpusFiles("nsys-sqlite").find(
    (f) => f.name === "pipit-nsys-2024.5.1.113-cloverleaf-cuda-perlmutter.sqlite",
  );
  (sqlite === undefined ? test.skip : test)(
    `pipit's events table agrees with the nsys-sqlite import of the same export: calls and ` +
      `time per kernel, copies per ` +
      `kind` +
      (sqlite === undefined ? " — not run: the export is external (FLAMEOX_CORPUS unset)" : ""),
    async () => {
      const rows = new TextDecoder()
        .decode(bytes)
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => line.split(","));
      const pipit = new Map<string, { calls: number; ns: number }>();
      for (const r of rows) {
        // Name,streamId,type,bytes,Trace Type,Event Type,Timestamp
        // (ns),_matching_event,_matching_timestamp,…: a Leave row carries its Enter's time.
        if (r[5] !== "Leave") continue;
        const key =
          r[2] === "kernel"
            ? r[0]!
            : `[CUDA memcpy ${r[0]!.replace("CUDA_MEMCPY_KIND_", "").replace("TO", "to")}]`;
        const entry = pipit.get(key) ?? { calls: 0, ns: 0 };
        entry.calls += 1;
        entry.ns += Number(r[6]) - Number(r[8]);
        pipit.set(key, entry);
      }
      const evidence = await extracted(adapterByName("nsys-sqlite")!, {
        bytes: loadPayload(sqlite!.path),
        displayName: sqlite!.name,
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      const mine = new Map<string, { calls: number; ns: number }>();
      for (const e of rowsOf(evidence.tables.trace_events)) {
        if (e.category !== "cuda_kernel" && e.category !== "cuda_memcpy") continue;
        const entry = mine.get(e.name as string) ?? { calls: 0, ns: 0 };
        entry.calls += 1;
        entry.ns += Number(e.dur_ns);
        mine.set(e.name as string, entry);
      }
      expect([...mine].sort()).toEqual([...pipit].sort());
    },
  );

  test("named explicitly, the trace adapter refuses it with a typed error", async () => {
    const error = await parseError(
      extracted(adapterByName("nsys-stats-trace-csv")!, {
        bytes,
        displayName: file.name,
        limits: DEFAULT_ADAPTER_LIMITS,
      }),
    );
    expect(error.code).toBe("ARTIFACT_PARSE_FAILED");
    expect(error.message).toContain("no cuda_gpu_trace header row");
  });
});
