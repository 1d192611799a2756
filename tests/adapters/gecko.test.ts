/**
 * Firefox Profiler files: every gecko (raw, meta.version 9 to 13 and 19, and a processed
 * Firefox 147 file) and processed corpus file (v24, samply's v41) is detected and imports;
 * self samples per function name equal an independent walk of the raw JSON's tables
 * written here; markers with a duration become X trace events; bad input fails typed.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { geckoAdapter } from "../../src/adapters/gecko/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expectFailure, extracted, extractWith, limitation } from "./adapter-harness.ts";
import { corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";

type Json = Record<string, any>;
const extract = async (bytes: Uint8Array) =>
  await extracted(geckoAdapter, { bytes, displayName: "t", limits: DEFAULT_ADAPTER_LIMITS });

/** Leaf function name of each sample, weighted, from the file's own tables (both shapes). */
function referenceSelf(doc: Json): Map<string, number> {
  const root = doc.meta ? doc : doc.profile;
  const out = new Map<string, number>();
  const add = (name: string, w: number) => out.set(name, (out.get(name) ?? 0) + w);
  const raw = root.meta.preprocessedProfileVersion === undefined;
  const visit = (p: Json) => {
    for (const t0 of p.threads) {
      const t = typeof t0 === "string" ? JSON.parse(t0) : t0;
      if (raw) {
        const s = t.samples.schema;
        const frameOf = (stack: number) => t.stackTable.data[stack][t.stackTable.schema.frame];
        for (const row of t.samples.data) {
          const stack = row[s.stack];
          if (stack === null || stack === undefined) continue;
          const location: string =
            t.stringTable[t.frameTable.data[frameOf(stack)][t.frameTable.schema.location]];
          const js = /^(.*)\s+\((.*?)(?::(\d+))?(?::(\d+))?\)$/.exec(location);
          add(
            js && js[2] !== "" ? js[1]!.trim() || "(anonymous)" : location,
            s.weight === undefined ? 1 : (row[s.weight] ?? 1),
          );
        }
      } else {
        const strings: string[] = t.stringArray ?? t.stringTable ?? root.shared.stringArray;
        t.samples.stack.forEach((stack: number | null, i: number) => {
          if (stack === null) return;
          const func = t.frameTable.func[t.stackTable.frame[stack]];
          add(strings[t.funcTable.name[func]]!, t.samples.weight ? (t.samples.weight[i] ?? 1) : 1);
        });
      }
    }
    for (const child of p.processes ?? []) if (raw) visit(child);
  };
  visit(root);
  for (const [k, v] of out) if (v === 0) out.delete(k);
  return out;
}

function selfByName(evidence: NormalizedEvidence, metric = "samples"): Map<string, number> {
  const names = new Map(
    rowsOf(evidence.tables.frames).map((f) => [f.frame_id as string, f.function as string]),
  );
  const out = new Map<string, number>();
  for (const m of rowsOf(evidence.tables.frame_measurements)) {
    if (m.metric !== metric || Number(m.self_value) === 0) continue;
    const name = names.get(m.frame_id as string)!;
    out.set(name, (out.get(name) ?? 0) + Number(m.self_value));
  }
  return out;
}

const SPEEDSCOPE = JSON.parse(
  readFileSync(join(import.meta.dir, "reference", "speedscope-1.25.0-importer-self.json"), "utf8"),
).files;

/**
 * speedscope's Firefox importer shows one thread's JavaScript frames only (those with a
 * `(file:line:col)` location, not `resource:` or `self-hosted`), each sample holding the
 * time to the next one. The same view of our evidence: each wall_time stack reduced to
 * those frames, its time to the innermost one left, in ms.
 */
function speedscopeView(evidence: NormalizedEvidence): Map<string, number> {
  const frames = new Map(rowsOf(evidence.tables.frames).map((f) => [f.frame_id as string, f]));
  const kept = (id: string) => {
    const f = frames.get(id)!;
    const file = (f.file as string | null) ?? "";
    return (
      f.language === "javascript" &&
      !file.startsWith("resource:") &&
      file !== "self-hosted" &&
      !file.startsWith("self-hosted:")
    );
  };
  const out = new Map<string, number>();
  for (const s of rowsOf(evidence.tables.stacks)) {
    if (s.metric !== "wall_time") continue;
    const js = (s.frame_ids as string[]).filter(kept);
    if (js.length === 0) continue;
    const name = frames.get(js[js.length - 1]!)!.function as string;
    out.set(name, (out.get(name) ?? 0) + Number(s.duration_ns) / 1e6);
  }
  return out;
}

const sorted = (m: Map<string, number>) =>
  [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

describe("gecko adapter", () => {
  const files = [...corpusFiles("gecko"), ...corpusFiles("fxprofiler-processed")];
  test("the lane has corpus files", () => expect(files.length).toBeGreaterThan(0));

  for (const file of files) {
    test(
      `${file.name}: detected; self samples per function equal an independent walk of the ` +
        `tables`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(detectAdapter({ head: headOf(bytes), displayName: "upload" })?.name).toBe("gecko");
        const evidence = await extract(bytes);
        const doc = JSON.parse(new TextDecoder().decode(bytes));
        expect(sorted(selfByName(evidence))).toEqual(sorted(referenceSelf(doc)));
        // Every interval marker is an X event with a non-negative duration on its thread's track,
        // which `tracks` describes.
        const tracks = new Set(rowsOf(evidence.tables.tracks).map((t) => t.track_id));
        for (const e of rowsOf(evidence.tables.trace_events)) {
          expect(tracks.has(e.track_id)).toBe(true);
          expect(["X", "i"]).toContain(e.phase as string);
          if (e.phase === "X") expect(Number(e.dur_ns)).toBeGreaterThanOrEqual(0);
        }
      },
    );
  }

  test(
    "speedscope's own importer agrees on the files it reads, within the one sampling interval " +
      "it leaves out",
    async () => {
      const read = Object.entries(SPEEDSCOPE).filter(
        ([k, v]: [string, any]) => k.startsWith("gecko/") && v.read,
      );
      expect(read.length).toBe(3);
      for (const [key, want] of read as [string, any][]) {
        const file = files.find((f) => `gecko/${f.name}` === key)!;
        const evidence = await extract(loadPayload(file.path));
        const ours = speedscopeView(evidence);
        const theirs = new Map(
          Object.entries(want.profiles[0].self_by_function as Record<string, number>),
        );
        // speedscope gives the last sample no time; we give it one interval (1 ms in these files).
        const names = new Set([...ours.keys(), ...theirs.keys()]);
        const off = [...names].reduce(
          (n, k) => n + Math.abs((ours.get(k) ?? 0) - (theirs.get(k) ?? 0)),
          0,
        );
        expect([key, off <= Number(evidence.summary.interval_ms) + 1e-3]).toEqual([key, true]);
        expect([
          key,
          [...names].filter((k) => Math.abs((ours.get(k) ?? 0) - (theirs.get(k) ?? 0)) > 1e-3)
            .length <= 1,
        ]).toEqual([key, true]);
      }
    },
  );

  test(
    "threads are tracks (samply's two threads; raw profiles' child processes); stacks equal " +
      "self samples",
    async () => {
      const file = files.find((f) => f.name.includes("samply-ls"))!;
      const evidence = await extract(loadPayload(file.path));
      // samply's first thread (perf-exec) has no samples; ls's samples are on its own pid:tid
      // track.
      expect([
        ...new Set(
          rowsOf(evidence.tables.frame_measurements).map((m) => `${m.track_id} ${m.process_name}`),
        ),
      ]).toEqual(["18693:18693#1 ls"]);
      const raw = files.find((f) => f.name.includes("gecko-12"));
      if (raw !== undefined) {
        // External lane: the v12 profile's main process threads and its child process's thread.
        expect(
          new Set(
            rowsOf((await extract(loadPayload(raw.path))).tables.frame_measurements).map(
              (m) => m.thread_name,
            ),
          ).size,
        ).toBeGreaterThan(1);
      }
      const stackSamples = rowsOf(evidence.tables.stacks).reduce(
        (n, s) => n + Number(s.sample_count),
        0,
      );
      const selfSamples = rowsOf(evidence.tables.frame_measurements).reduce(
        (n, m) => n + Number(m.self_samples),
        0,
      );
      expect(stackSamples).toBe(selfSamples);
    },
  );

  test(
    "hand-made processed profile: shared strings, weights, timeDeltas, paired " +
      "start/end markers",
    async () => {
      const profile = {
        meta: {
          version: 30,
          preprocessedProfileVersion: 50,
          interval: 1,
          startTime: 0,
          product: "Firefox",
        },
        shared: { stringArray: ["main", "work", "app.js", "Paint", "GC"] },
        libs: [],
        threads: [
          {
            name: "GeckoMain",
            processName: "Web Content",
            pid: "7",
            tid: 8,
            funcTable: {
              length: 2,
              name: [0, 1],
              fileName: [2, 2],
              lineNumber: [1, 5],
              columnNumber: [null, null],
              isJS: [true, true],
              resource: [-1, -1],
            },
            frameTable: { length: 2, func: [0, 1] },
            stackTable: { length: 2, frame: [0, 1], prefix: [null, 0] },
            samples: {
              length: 3,
              stack: [1, 0, null],
              timeDeltas: [1, 1, 1],
              weight: [2, 1, 1],
              weightType: "samples",
            },
            markers: {
              length: 3,
              name: [3, 4, 4],
              startTime: [1, 1.5, null],
              endTime: [3, null, 2.5],
              phase: [1, 2, 3],
              data: [null, null, null],
            },
          },
        ],
      };
      const evidence = await extractWith(geckoAdapter, profile);
      expect(selfByName(evidence)).toEqual(
        new Map([
          ["work", 2],
          ["main", 1],
        ]),
      );
      expect(rowsOf(evidence.tables.frames).find((f) => f.function === "work")).toMatchObject({
        language: "javascript",
        file: "app.js",
        line: 5,
      });
      const events = rowsOf(evidence.tables.trace_events).map((e) => [
        e.name,
        Number(e.ts_ns),
        e.dur_ns,
        e.depth,
        e.track_id,
      ]);
      expect(events).toEqual([
        ["Paint", 1_000_000, 2_000_000, 0, "7:8"],
        ["GC", 1_500_000, 1_000_000, 1, "7:8"],
      ]);
      expect(limitation(evidence, "samples_without_stack")).toBe(1);
      const first = rowsOf(evidence.tables.stacks)
        .filter((s) => s.metric === "samples")
        .map((s) => Number(s.first_ts_ns))
        .sort((a, b) => a - b);
      expect(first).toEqual([1_000_000, 2_000_000]);
      // Each sample holds the time to the thread's next sample (the stackless one at 3 ms ends the
      // second).
      expect(selfByName(evidence, "wall_time")).toEqual(
        new Map([
          ["work", 1_000_000],
          ["main", 1_000_000],
        ]),
      );
    },
  );

  test(
    "hand-made raw profile: a thread written as a JSON string, a child process on its own " +
      "clock, old tracing markers",
    async () => {
      const thread = (name: string, tid: number, locations: string[]) => ({
        name,
        tid,
        pid: 1,
        processType: "default",
        stringTable: [...locations, "Paint"],
        frameTable: {
          schema: { location: 0, implementation: 1, line: 2 },
          data: locations.map((_, i) => [i, null, null]),
        },
        stackTable: {
          schema: { prefix: 0, frame: 1 },
          data: locations.map((_, i) => [i === 0 ? null : i - 1, i]),
        },
        samples: {
          schema: { stack: 0, time: 1 },
          data: [
            [locations.length - 1, 10],
            [locations.length - 1, 11],
            [0, 12],
          ],
        },
        markers: {
          schema: { name: 0, time: 1, data: 2 },
          data: [
            [locations.length, 10, { interval: "start", category: "Paint" }],
            [locations.length, 10.5, { interval: "end", category: "Paint" }],
          ],
        },
      });
      const profile = {
        meta: { version: 3, startTime: 1000, interval: 1, stackwalk: 1, product: "Firefox" },
        libs: "[]",
        threads: [
          JSON.stringify(thread("GeckoMain", 1, ["XRE_Main", "run (chrome://app.js:7:2)"])),
        ],
        processes: [
          {
            meta: { version: 3, startTime: 1005, interval: 1 },
            threads: [thread("Content", 2, ["0x7f001", "draw (https://site/x.js:3)"])],
          },
        ],
      };
      const evidence = await extractWith(geckoAdapter, profile);
      expect(selfByName(evidence)).toEqual(
        new Map([
          ["run", 2],
          ["XRE_Main", 1],
          ["draw", 2],
          ["0x7f001", 1],
        ]),
      );
      expect(rowsOf(evidence.tables.frames).find((f) => f.function === "run")).toMatchObject({
        language: "javascript",
        file: "chrome://app.js",
        line: 7,
        column: 3,
      });
      expect(rowsOf(evidence.tables.frames).find((f) => f.function === "0x7f001")).toMatchObject({
        language: "native",
        symbolization: "absent",
      });
      // The child process started 5 ms later: its times are moved onto the parent's clock.
      const paints = rowsOf(evidence.tables.trace_events)
        .map((e) => [e.track_id, Number(e.ts_ns), e.dur_ns])
        .sort();
      expect(paints).toEqual([
        ["1:1", 10_000_000, 500_000],
        ["1:2", 15_000_000, 500_000],
      ]);
    },
  );

  test("bad input ends in typed errors naming the field", async () => {
    expect(
      await expectFailure(
        geckoAdapter,
        { meta: { version: 2 }, threads: [] },
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("meta.version");
    expect(
      await expectFailure(geckoAdapter, { meta: { version: 12 } }, "ARTIFACT_PARSE_FAILED"),
    ).toContain("threads");
    const thread = {
      stringTable: ["a"],
      frameTable: { schema: { location: 0 }, data: [[0]] },
      stackTable: { schema: { prefix: 0, frame: 1 }, data: [[1, 0]] },
      samples: { schema: { stack: 0, time: 1 }, data: [[0, 1]] },
      markers: { schema: { name: 0, time: 1 }, data: [] },
    };
    // A prefix pointing forward would let a walk loop: refused.
    expect(
      await expectFailure(
        geckoAdapter,
        { meta: { version: 12 }, threads: [thread] },
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("stackTable.prefix[0]");
    const badString = {
      ...thread,
      stackTable: { schema: { prefix: 0, frame: 1 }, data: [[null, 0]] },
      frameTable: { schema: { location: 0 }, data: [[9]] },
    };
    expect(
      await expectFailure(
        geckoAdapter,
        { meta: { version: 12 }, threads: [badString] },
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("frameTable.location[0]");
    expect(
      await expectFailure(
        geckoAdapter,
        { meta: { preprocessedProfileVersion: 40 }, threads: [{ funcTable: { name: [] } }] },
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("stringArray");
    expect(
      await expectFailure(geckoAdapter, "[".repeat(10_000), "ARTIFACT_PARSE_FAILED"),
    ).toBeTruthy();
  });
});
