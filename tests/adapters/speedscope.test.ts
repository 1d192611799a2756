/**
 * speedscope JSON: every corpus file (speedscope's own test files, evented and sampled,
 * versions 0.0.1 to 0.6.0) and the hand-written cases import; self values per frame name
 * equal an independent computation from the raw JSON (sampled: weights summed per leaf;
 * evented: each frame's open time minus its children's, from matched O/C pairs); the same
 * profile as evented, sampled and collapsed stacks gives the same self totals.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { collapsedStacksAdapter } from "../../src/adapters/collapsed-stacks/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import { speedscopeAdapter } from "../../src/adapters/speedscope/adapter.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { REPO } from "../helpers.ts";
import { corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf, traceEventRows } from "./evidence-checks.ts";
import { extracted } from "./adapter-harness.ts";

const FIXTURES = join(REPO, "fixtures", "speedscope");
const files = [
  ...corpusFiles("speedscope"),
  ...readdirSync(FIXTURES)
    .filter((n) => n.endsWith(".json"))
    .map((name) => ({ name, path: join(FIXTURES, name) })),
];
const enc = (s: string) => new TextEncoder().encode(s);
const extract = async (bytes: Uint8Array, maxEvents = DEFAULT_ADAPTER_LIMITS.maxEvents) =>
  await extracted(speedscopeAdapter, {
    bytes,
    displayName: "t",
    limits: { ...DEFAULT_ADAPTER_LIMITS, maxEvents },
  });
const NS: Record<string, number> = {
  nanoseconds: 1,
  microseconds: 1e3,
  milliseconds: 1e6,
  seconds: 1e9,
  none: 1,
  bytes: 1,
};

type Json = Record<string, any>;

/**
 * Self value per frame name, in the adapter's units (ns for time units), rounded per contribution
 * as stored.
 */
function referenceSelf(file: Json): Map<string, number> {
  const names: string[] = file.shared.frames.map((f: Json) =>
    f.name === "" ? "[unknown]" : f.name,
  );
  const self = new Map<string, number>();
  const add = (name: string, v: number) => self.set(name, (self.get(name) ?? 0) + v);
  for (const p of file.profiles as Json[]) {
    const scale = NS[p.unit]!;
    if (p.type === "sampled") {
      p.samples.forEach(
        (s: number[], i: number) =>
          s.length > 0 && add(names[s[s.length - 1]!]!, Math.round(p.weights[i] * scale)),
      );
      continue;
    }
    // Matched pairs → [start, end, depth]; self = own span minus direct children's spans.
    const spans: { frame: number; start: number; end: number; depth: number }[] = [];
    const open: { frame: number; at: number }[] = [];
    for (const e of p.events) {
      if (e.type === "O") open.push({ frame: e.frame, at: e.at });
      else {
        const o = open.pop()!;
        spans.push({ frame: o.frame, start: o.at, end: e.at, depth: open.length });
      }
    }
    for (const s of spans) {
      const children = spans.filter(
        (c) => c.depth === s.depth + 1 && c.start >= s.start && c.end <= s.end,
      );
      add(
        names[s.frame]!,
        (s.end - s.start - children.reduce((n, c) => n + (c.end - c.start), 0)) * scale,
      );
    }
  }
  for (const [k, v] of self) if (v === 0) self.delete(k);
  return self;
}

function selfByName(evidence: NormalizedEvidence, metric?: string): Map<string, number> {
  const names = new Map(
    rowsOf(evidence.tables.frames).map((f) => [f.frame_id as string, f.function as string]),
  );
  const out = new Map<string, number>();
  for (const m of rowsOf(evidence.tables.frame_measurements)) {
    if ((metric && m.metric !== metric) || Number(m.self_value) === 0) continue;
    const name = names.get(m.frame_id as string)!;
    out.set(name, (out.get(name) ?? 0) + Number(m.self_value));
  }
  return out;
}

const sorted = (m: Map<string, number>) => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));
const wellNested = (name: string) => !name.includes("invalid");

describe("speedscope adapter", () => {
  for (const file of files) {
    test(
      `${file.name}: detected; self values per ` + `frame equal an independent computation`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(detectAdapter({ head: headOf(bytes), displayName: "upload" })?.name).toBe(
          "speedscope",
        );
        const evidence = await extract(bytes);
        if (wellNested(file.name)) {
          const ref = referenceSelf(JSON.parse(new TextDecoder().decode(bytes)));
          const got = selfByName(evidence);
          expect(sorted(got).map(([k, v]) => [k, Math.round(v)])).toEqual(
            sorted(ref).map(([k, v]) => [k, Math.round(v)]),
          );
        }
      },
    );
  }

  test(
    "one profile three ways: evented (0.0.1), sampled (0.1.2) and collapsed stacks " + "agree",
    async () => {
      const byName = (f: string) =>
        loadPayload(corpusFiles("speedscope").find((c) => c.name.includes(f))!.path);
      const evented = selfByName(await extract(byName("0.0.1")), "samples");
      const sampled = new Map(
        [...selfByName(await extract(byName("0.1.2")), "cpu_time")].map(([k, v]) => [k, v / 1e9]),
      );
      const collapsed = await extracted(collapsedStacksAdapter, {
        bytes: loadPayload(
          corpusFiles("collapsed-stacks").find((c) => c.name.includes("simple-crlf"))!.path,
        ),
        displayName: "t",
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      expect(sorted(evented)).toEqual(sorted(sampled));
      expect(sorted(evented)).toEqual(sorted(selfByName(collapsed, "samples")));
    },
  );

  test(
    "evented profiles in a time unit: wall_time, and each O/C pair a slice with its " + "depth",
    async () => {
      const evidence = await extract(
        readFileSync(join(FIXTURES, "evented-milliseconds.speedscope.json")),
      );
      expect(evidence.summary.metrics).toBe("wall_time");
      const slices = traceEventRows(evidence);
      expect(slices.length).toBe(6);
      const walk = slices
        .filter((s) => s.name === "walk" && s.track_id === "profile:0")
        .map((s) => [Number(s.ts_ns), s.dur_ns, s.depth]);
      expect(walk.sort()).toEqual([
        [105_000_000, 15_000_000, 2],
        [110_000_000, 8_000_000, 3],
      ]);
      expect(new Set(slices.map((s) => s.thread_name))).toEqual(new Set(["main thread", "worker"]));
      expect(evidence.producer).toBe("speedscope");
      const frames = rowsOf(evidence.tables.frames);
      expect(frames.find((f) => f.function === "parse")).toMatchObject({
        language: "javascript",
        file: "app.js",
        line: 10,
        column: null,
      });
      expect(evidence.limitations).toEqual([]);
    },
  );

  test(
    "py-spy's exporter is the producer; .py frames are Python; one track per profile; empty " +
      "samples counted",
    async () => {
      const evidence = await extract(readFileSync(join(FIXTURES, "py-spy-shaped.speedscope.json")));
      expect([evidence.producer, evidence.producerVersion]).toEqual(["py-spy", "0.3.14"]);
      expect(rowsOf(evidence.tables.frames).find((f) => f.function === "fib")).toMatchObject({
        language: "python",
        file: "/srv/app/work.py",
        line: 3,
      });
      expect(
        new Set(rowsOf(evidence.tables.frame_measurements).map((m) => m.thread_name)).size,
      ).toBe(2);
      expect(evidence.limitations.find((l) => l.code === "samples_without_stack")?.count).toBe(1);
    },
  );

  test(
    "speedscope's invalid out-of-order file imports with its mismatched and unmatched closes " +
      "counted",
    async () => {
      const evidence = await extract(
        loadPayload(corpusFiles("speedscope").find((f) => f.name.includes("invalid"))!.path),
      );
      const codes = Object.fromEntries(evidence.limitations.map((l) => [l.code, l.count]));
      expect(codes).toMatchObject({ mismatched_close_events: 1, unmatched_close_events: 1 });
    },
  );

  test("bad input ends in typed errors naming the field", async () => {
    const fail = async (text: string, maxEvents?: number) => {
      try {
        await extract(enc(text), maxEvents);
        return "ok";
      } catch (error) {
        return error instanceof FlameoxError ? `${error.code}: ${error.message}` : String(error);
      }
    };
    const shared = '"shared":{"frames":[{"name":"a"}]}';
    expect(
      await fail(
        `{${shared},"profiles":[{"type":"sampled","unit":"minutes","samples":[],"weights":[]}]}`,
      ),
    ).toContain("profiles[0].unit");
    expect(
      await fail(
        `{${shared},"profiles":[{"type":"sampled","unit":"none","samples":[[3]],"weights":[1]}]}`,
      ),
    ).toContain("profiles[0].samples[0][0]");
    expect(
      await fail(
        `{${shared},"profiles":[{"type":"sampled","unit":"none","samples":[[0]],"weights":[]}]}`,
      ),
    ).toContain("weights");
    expect(
      await fail(
        `{${shared},"profiles":[{"type":"evented","unit":"none","events":[{"type":"X",` +
          `"frame":0,"at":0}]}]}`,
      ),
    ).toContain("ARTIFACT_PARSE_FAILED");
    expect(await fail(`{"profiles":[]}`)).toContain("shared.frames");
    expect(await fail("[".repeat(10_000))).toContain("ARTIFACT_PARSE_FAILED");
    expect(
      await fail(
        `{${shared}` +
          `,"profiles":[{"type":"sampled","unit":"none","samples":[[0],[0]],"weights":[1,1]}]}`,
        1,
      ),
    ).toContain("ARTIFACT_TOO_LARGE");
    // Weights and times that could not be summed exactly in int64 columns.
    expect(
      await fail(
        `{${shared}` +
          `,"profiles":[{"type":"sampled","unit":"seconds","samples":[[0]],"weights":[1e300]}]}`,
      ),
    ).toContain("beyond 2^53");
    expect(
      await fail(
        `{${shared},"profiles":[{"type":"evented","unit":"seconds","events":[{"type":"O",` +
          `"frame":0,"at":0},{"type":"C","frame":0,"at":1e10}]}]}`,
      ),
    ).toContain("beyond 2^53");
  });
});
