/**
 * One Chromium run recorded as a JSON trace and as a Perfetto (protobuf) trace at once
 * (scripts/record-chromium-pair.ts: startup tracing to protobuf beside a DevTools session
 * in JSON). Both files hold the same V8 profiler samples, so the two imports must agree on
 * them function by function, and each import must count exactly what its own file holds,
 * counted straight from the file (chromium-raw-trace.ts: JSON.parse; a protobufjs walk).
 * The committed pair (fixtures/chromium) runs everywhere; a fresh recording needs Chromium
 * and runs in the heavy lane.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { findChromium, recordChromiumPair } from "../../scripts/record-chromium-pair.ts";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { cli, heavyTest, REPO } from "../helpers.ts";
import { chromeTraceAdapter, extractWith, limitation, extracted } from "./adapter-harness.ts";
import {
  countSamples,
  jsonChunks,
  jsonThreadTimes,
  protoChunks,
  protoThreadTimes,
} from "./chromium-raw-trace.ts";
import { type Row, totalsByFunction, traceEventRows } from "./evidence-checks.ts";
import { functionKey } from "./reference-cpuprofile.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";

const perfetto = adapterByName("perfetto")!;
const FIXTURE = join(REPO, "fixtures", "chromium");
type Msg = Record<string, any>;

interface Recording {
  text: string;
  bytes: Uint8Array;
  json: NormalizedEvidence;
  proto: NormalizedEvidence;
}

async function load(text: string, bytes: Uint8Array): Promise<Recording> {
  return {
    text,
    bytes,
    json: await extractWith(chromeTraceAdapter, text),
    proto: await extracted(perfetto, {
      bytes,
      displayName: "trace.pftrace",
      limits: DEFAULT_ADAPTER_LIMITS,
    }),
  };
}

// ---- V8 profiler samples ----

/** Self samples per function as imported, summed over tracks and lines. */
function importedSamples(evidence: NormalizedEvidence): Map<string, number> {
  return new Map(
    [...totalsByFunction(evidence, "cpu_time")]
      .filter(([, v]) => v.selfSamples > 0)
      .map(([k, v]) => [k, v.selfSamples]),
  );
}

/**
 * JavaScript functions (those with a script URL, `only` those of one) by self cpu_time, largest
 * first.
 */
function topJavaScript(
  evidence: NormalizedEvidence,
  n: number,
  only?: string,
): { fn: string; ns: number; samples: number }[] {
  return [...totalsByFunction(evidence, "cpu_time")]
    .filter(([fn]) => !fn.endsWith(" @ ") && (only === undefined || fn.endsWith(` @ ${only}`)))
    .map(([fn, v]) => ({ fn, ns: v.selfNs, samples: v.selfSamples }))
    .sort((a, b) => b.ns - a.ns || a.fn.localeCompare(b.fn))
    .slice(0, n);
}

const within = (a: number, b: number, fraction: number): boolean =>
  Math.abs(a - b) <= fraction * Math.max(Math.abs(a), Math.abs(b));

/**
 * What one run in both forms must show: each import counts exactly its own file's samples,
 * and the two agree within 1% on the top JavaScript functions' samples and cpu_time (`only`
 * those of one script: the page's, where Chromium's own UI renderer may run outside the
 * shorter session's window).
 */
function expectSameSamples(
  r: Recording,
  pageUrl: string,
  only?: string,
): { fn: string; ns: number; samples: number }[] {
  expect(importedSamples(r.json)).toEqual(countSamples(jsonChunks(r.text)));
  expect(importedSamples(r.proto)).toEqual(countSamples(protoChunks(r.bytes)));
  const fromJson = topJavaScript(r.json, 5, only);
  expect(fromJson.length).toBeGreaterThan(1);
  const fromProto = new Map(topJavaScript(r.proto, 1_000, only).map((t) => [t.fn, t]));
  expect(fromJson[0]!.fn).toBe(functionKey("fib", pageUrl));
  expect(topJavaScript(r.proto, 1)[0]!.fn).toBe(fromJson[0]!.fn);
  for (const top of fromJson) {
    const other = fromProto.get(top.fn);
    expect(other).toBeDefined();
    expect({
      fn: top.fn,
      samples: within(other!.samples, top.samples, 0.01),
      ns: within(other!.ns, top.ns, 0.01),
    }).toEqual({ fn: top.fn, samples: true, ns: true });
  }
  return fromJson;
}

// ---- User timings and marks ----

const userTimings = (e: NormalizedEvidence): Row[] =>
  traceEventRows(e).filter((r) => r.category === "blink.user_timing");
const named = (rows: Row[], name: string): Row[] => rows.filter((r) => r.name === name);

/**
 * The page's performance.measure and mark, and every navigationStart mark of the JSON form,
 * are in the protobuf form at the same time on the same thread, with the same duration.
 */
function expectSameUserTimings(r: Recording): void {
  const [json, proto] = [userTimings(r.json), userTimings(r.proto)];
  const [mark, protoMark] = [named(json, "fib-start"), named(proto, "fib-start")];
  const [measure, protoMeasure] = [named(json, "fib-loop"), named(proto, "fib-loop")];
  for (const rows of [mark, protoMark, measure, protoMeasure]) expect(rows.length).toBe(1);
  // Times relative to the mark, so the check holds whatever clock the protobuf trace keeps.
  const offset = (row: Row, origin: Row) => Number(row.ts_ns) - Number(origin.ts_ns);
  expect(offset(protoMeasure[0]!, protoMark[0]!)).toBe(offset(measure[0]!, mark[0]!));
  expect(Number(protoMeasure[0]!.dur_ns)).toBe(Number(measure[0]!.dur_ns));
  expect(Number(measure[0]!.dur_ns)).toBeGreaterThan(600e6);
  expect([
    protoMark[0]!.pid,
    protoMark[0]!.tid,
    protoMark[0]!.process_name,
    protoMark[0]!.thread_name,
  ]).toEqual([mark[0]!.pid, mark[0]!.tid, "Renderer", "CrRendererMain"]);
  expect([mark[0]!.process_name, mark[0]!.thread_name]).toEqual(["Renderer", "CrRendererMain"]);
  const where = (rows: Row[], origin: Row) =>
    rows.map((row) => `${offset(row, origin)} ${row.pid}/${row.tid} ${row.thread_name}`);
  const jsonNavigations = where(named(json, "navigationStart"), mark[0]!);
  expect(jsonNavigations.length).toBeGreaterThan(0);
  expect(where(named(proto, "navigationStart"), protoMark[0]!)).toEqual(
    expect.arrayContaining(jsonNavigations),
  );
}

// ---- Thread (CPU) time of slices ----

/**
 * Imported slices' thread time, keyed as chromium-raw-trace.ts keys the file's: "pid/tid name ts"
 * (ns).
 */
function importedThreadTimes(e: NormalizedEvidence): Map<string, number> {
  return new Map(
    traceEventRows(e)
      .filter((r) => r.thread_dur_ns !== null)
      .map((r) => [`${r.pid}/${r.tid} ${r.name} ${r.ts_ns}`, Number(r.thread_dur_ns)]),
  );
}

/**
 * For each JSON slice with at least `minNs` of thread time: the relative difference from
 * the protobuf slice on the same thread, of the same name and depth, beginning nearest.
 * Each session timestamps its own copy of an event (a begin can be µs, at a sequence's
 * first event even ms, apart), so slices are paired by nearest begin, not equal begin.
 */
function threadTimeDifferences(
  r: Recording,
  minNs: number,
): { name: string; json: number; proto: number; relative: number }[] {
  const key = (row: Row) => `${row.pid}/${row.tid} ${row.name} ${row.depth}`;
  const proto = new Map<string, Row[]>();
  for (const row of traceEventRows(r.proto))
    if (row.thread_dur_ns !== null) proto.set(key(row), [...(proto.get(key(row)) ?? []), row]);
  return traceEventRows(r.json)
    .filter((row) => Number(row.thread_dur_ns ?? 0) >= minNs)
    .map((row) => {
      const candidates = proto.get(key(row)) ?? [];
      const distance = (other: Row) => Math.abs(Number(other.ts_ns) - Number(row.ts_ns));
      const nearest = candidates.sort((a, b) => distance(a) - distance(b))[0];
      const [json, other] = [
        Number(row.thread_dur_ns),
        Number(nearest?.thread_dur_ns ?? Number.NaN),
      ];
      return {
        name: String(row.name),
        json,
        proto: other,
        relative: Math.abs(other - json) / json,
      };
    });
}

/** Each import's thread times are its file's, to the ns (JSON: µs, as Chrome writes them). */
function expectThreadTimesAsInFiles(r: Recording): void {
  const json = importedThreadTimes(r.json);
  expect(json.size).toBeGreaterThan(0);
  expect(json).toEqual(jsonThreadTimes(r.text));
  expect(r.proto.summary.primary_clock).toBe(3);
  const proto = importedThreadTimes(r.proto);
  expect(proto.size).toBeGreaterThan(0);
  expect(proto).toEqual(protoThreadTimes(r.bytes));
}

describe("one Chromium run, recorded as JSON and as protobuf", () => {
  const pageUrl = "file:///tmp/chromium-fixture/fib-page.html";

  test(
    "committed pair: the same samples per function in both forms, each as its file " +
      "counts them",
    async () => {
      const r = await load(
        gunzipSync(readFileSync(join(FIXTURE, "fib.json.gz"))).toString("utf8"),
        new Uint8Array(gunzipSync(readFileSync(join(FIXTURE, "fib.pftrace.gz")))),
      );
      const top = expectSameSamples(r, pageUrl);
      // This recording's own numbers: fib took 2579 samples in each form, the same ns.
      const fib = topJavaScript(r.proto, 1)[0]!;
      expect([top[0]!.samples, fib.samples, fib.ns]).toEqual([2579, 2579, top[0]!.ns]);
      // The page's functions ran while both sessions recorded: equal counts. (Chromium's own
      // UI renderer goes on running after the DevTools session ends: a few more there.)
      const pageOnly = (counts: Map<string, number>) =>
        [...counts].filter(([fn]) => fn.endsWith(` @ ${pageUrl}`)).sort();
      expect(pageOnly(importedSamples(r.json)).length).toBeGreaterThan(1);
      expect(pageOnly(importedSamples(r.proto))).toEqual(pageOnly(importedSamples(r.json)));
      expectSameUserTimings(r);
      expectThreadTimesAsInFiles(r);
      // Every slice with 1 ms of thread time or more: the same thread time in the other form.
      const differences = threadTimeDifferences(r, 1e6);
      expect(differences.length).toBeGreaterThan(2);
      for (const d of differences)
        expect({
          ...d,
          agrees: Math.abs(d.proto - d.json) <= Math.max(0.01 * d.json, 20_000),
        }).toMatchObject({ agrees: true });
      // Both forms say the same about anonymous functions.
      expect(limitation(r.proto, "missing_symbols")).toBeGreaterThan(0);
      expect(limitation(r.json, "missing_symbols")).toBeGreaterThan(0);
      // Streamed in small chunks, the protobuf import gives the same evidence.
      await expectSameOutcome(perfetto, r.bytes, { displayName: "fib.pftrace", chunkSize: 4099 });
    },
  );

  test("committed pair through the CLI: analyze hotspots --metric cpu_time ranks the same " +
    "functions with the same samples", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flameox-chromium-pair-"));
    try {
      const files = { json: join(dir, "fib.json"), proto: join(dir, "fib.pftrace") };
      await Bun.write(files.json, gunzipSync(readFileSync(join(FIXTURE, "fib.json.gz"))));
      await Bun.write(files.proto, gunzipSync(readFileSync(join(FIXTURE, "fib.pftrace.gz"))));
      expect((await cli(["init", dir], { cwd: dir })).code).toBe(0);
      const hotspots = async (file: string) => {
        const imported = await cli(["import", file, "--json"], { cwd: dir });
        expect(imported.code).toBe(0);
        const result = await cli(
          [
            "analyze",
            "hotspots",
            imported.json.artifact_id,
            "--metric",
            "cpu_time",
            "--limit",
            "8",
            "--json",
          ],
          { cwd: dir },
        );
        expect(result.code).toBe(0);
        return (result.json.items as Msg[])
          .filter((i) => i.language === "javascript")
          .slice(0, 3)
          .map((i) => [i.function, i.file, i.self_samples, i.self_value]);
      };
      const [fromJson, fromProto] = [await hotspots(files.json), await hotspots(files.proto)];
      expect(fromJson[0]).toEqual(["fib", pageUrl, 2579, expect.any(Number)]);
      expect(fromProto).toEqual(fromJson);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  const chromium = findChromium();
  const fresh = chromium === undefined ? test.skip : heavyTest;
  fresh(
    `fresh recording with the installed ` +
      `Chromium${chromium === undefined ? " (none installed)" : ""}`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "flameox-chromium-"));
      try {
        // toplevel adds the task slices whose thread (CPU) time both forms carry.
        const categories = [
          "-*",
          "toplevel",
          "disabled-by-default-v8.cpu_profiler",
          "blink.user_timing",
        ];
        const page = join(FIXTURE, "fib-page.html");
        const pair = await recordChromiumPair({
          chromium: chromium!,
          page,
          outDir: dir,
          categories,
        });
        const r = await load(
          readFileSync(pair.json, "utf8"),
          new Uint8Array(readFileSync(pair.proto)),
        );
        // Chromium's UI renderer (chrome://omnibox-popup) starts with the browser and runs
        // while the startup session records alone, at a time that varies from run to run: the
        // page's functions are the ones both sessions saw whole.
        expectSameSamples(r, `file://${page}`, `file://${page}`);
        expectSameUserTimings(r);
        // The task that ran the fib loop: the longest slice on the page's main thread; its
        // thread time is the JSON's tdur and the protobuf's thread_time readings.
        const measure = named(userTimings(r.json), "fib-loop")[0]!;
        const fibTask = (e: NormalizedEvidence) => {
          const rows = traceEventRows(e).filter(
            (row) =>
              row.pid === measure.pid &&
              row.thread_name === "CrRendererMain" &&
              row.dur_ns !== null,
          );
          return rows.sort((a, b) => Number(b.dur_ns) - Number(a.dur_ns))[0]!;
        };
        const [jsonTask, protoTask] = [fibTask(r.json), fibTask(r.proto)];
        expect(protoTask.name).toBe(jsonTask.name);
        expect(Number(jsonTask.thread_dur_ns)).toBeGreaterThan(0);
        // Within 1%; the wall duration also within 25 ms, as each session timestamps its own
        // copy of the task's begin and end: on a loaded machine they were 6.6 ms (1.04%) apart
        // for the ~640 ms task, once in 26 recordings, and 22.4 ms (3.5%) once on a noisier day,
        // while its thread times agreed exactly both times.
        const agreement = (field: "thread_dur_ns" | "dur_ns", slackNs: number) => {
          const [json, proto] = [Number(jsonTask[field]), Number(protoTask[field])];
          const agrees = within(proto, json, 0.01) || Math.abs(proto - json) <= slackNs;
          return { field, json, proto, agrees };
        };
        expect(agreement("thread_dur_ns", 0)).toMatchObject({ agrees: true });
        expect(agreement("dur_ns", 25e6)).toMatchObject({ agrees: true });
        // Each import holds its file's thread times exactly; between the files, Chrome's own
        // readings for a task differ by more than 1% for some tasks (measured: 0-12% of those
        // with 1 ms of thread time or more, some by a third; two protobuf sessions of one run
        // differ the same way, so it is in what each session records); most agree.
        expectThreadTimesAsInFiles(r);
        const differences = threadTimeDifferences(r, 1e6)
          .map((d) => d.relative)
          .sort((a, b) => a - b);
        expect(differences.length).toBeGreaterThan(10);
        expect(differences[Math.floor(differences.length / 2)]!).toBeLessThanOrEqual(0.01);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
