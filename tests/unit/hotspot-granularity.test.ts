/**
 * Hotspots per function, as `pprof -top` shows them: a profiler that stores one frame per
 * sampled line must not spread a function over many rows. Checked on pprof CPU profiles
 * against a walk of the raw profile.proto written here (protobufjs decode, each sample's
 * leaf function takes its value as self, every function on its stack, inlined ones
 * included, takes it once as inclusive).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import type { Hotspot, HotspotsResult } from "../../src/analysis/hotspots.ts";
import { Profile } from "../../src/adapters/pprof/pprof-schema.ts";
import { corpusFiles } from "../adapters/corpus-files.ts";
import { tempWorkspace } from "../helpers.ts";

let service: WorkspaceService;
let cleanup: () => void;

beforeAll(async () => {
  const ws = await tempWorkspace();
  cleanup = ws.cleanup;
  service = await WorkspaceService.open({ workspace: ws.root });
}, 60_000);

afterAll(() => {
  service?.close();
  cleanup?.();
});

type Msg = Record<string, any>;

interface RawProfile {
  cpu: number;
  /** Per sample: its frames leaf first, as "function @ file" and line, and its cpu value. */
  samples: { frames: { fn: string; line: number }[]; value: number }[];
}

function rawProfile(bytes: Uint8Array): RawProfile | null {
  const raw = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
  const p = Profile.toObject(Profile.decode(raw), { longs: Number }) as Msg;
  const strings: string[] = p.string_table ?? [];
  const cpu = (p.sample_type ?? []).findIndex(
    (t: Msg) => strings[t.type ?? 0] === "cpu" && strings[t.unit ?? 0] === "nanoseconds",
  );
  if (cpu < 0) return null;
  const functions = new Map<number, string>(
    (p.function ?? []).map((f: Msg) => [
      Number(f.id),
      `${strings[f.name ?? 0]} @ ${strings[f.filename ?? 0] ?? ""}`,
    ]),
  );
  const locations = new Map<number, { fn: string; line: number }[]>(
    (p.location ?? []).map((l: Msg) => [
      Number(l.id),
      (l.line ?? []).length > 0
        ? l.line.map((ln: Msg) => ({
            fn: functions.get(Number(ln.function_id))!,
            line: Number(ln.line ?? 0),
          }))
        : [{ fn: `0x${Number(l.address ?? 0).toString(16)} @ `, line: 0 }],
    ]),
  );
  const samples = (p.sample ?? []).map((s: Msg) => ({
    frames: (s.location_id ?? []).flatMap((id: number) => locations.get(Number(id)) ?? []),
    value: Number(s.value?.[cpu] ?? 0),
  }));
  return { cpu, samples };
}

/**
 * Callers of a function by caller function: per sample, each distinct (caller line, callee
 * line) pair whose callee is the function counts once, as a call edge between stored frames does.
 */
function referenceCallers(raw: RawProfile, fn: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of raw.samples) {
    if (s.value === 0) continue;
    const pairs = new Set<string>();
    for (let k = 0; k + 1 < s.frames.length; k++) {
      const callee = s.frames[k]!;
      const caller = s.frames[k + 1]!;
      if (callee.fn !== fn) continue;
      const pair = `${caller.fn}:${caller.line}>${callee.fn}:${callee.line}`;
      if (pairs.has(pair)) continue;
      pairs.add(pair);
      out.set(caller.fn, (out.get(caller.fn) ?? 0) + s.value);
    }
  }
  return out;
}

/** Per "function @ file": self and inclusive nanoseconds of the profile's `cpu` sample type. */
function referenceByFunction(
  bytes: Uint8Array,
): Map<string, { self: number; incl: number }> | null {
  const raw = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
  const p = Profile.toObject(Profile.decode(raw), { longs: Number }) as Msg;
  const strings: string[] = p.string_table ?? [];
  const cpu = (p.sample_type ?? []).findIndex(
    (t: Msg) => strings[t.type ?? 0] === "cpu" && strings[t.unit ?? 0] === "nanoseconds",
  );
  if (cpu < 0) return null;
  const functions = new Map<number, string>(
    (p.function ?? []).map((f: Msg) => [
      Number(f.id),
      `${strings[f.name ?? 0]} @ ${strings[f.filename ?? 0] ?? ""}`,
    ]),
  );
  // A location without line info is its address, as pprof shows it.
  const locations = new Map<number, string[]>(
    (p.location ?? []).map((l: Msg) => [
      Number(l.id),
      (l.line ?? []).length > 0
        ? l.line.map((ln: Msg) => functions.get(Number(ln.function_id))!)
        : [`0x${Number(l.address ?? 0).toString(16)} @ `],
    ]),
  );
  const out = new Map<string, { self: number; incl: number }>();
  const at = (key: string) => out.get(key) ?? (out.set(key, { self: 0, incl: 0 }), out.get(key)!);
  for (const s of p.sample ?? []) {
    const value = Number(s.value?.[cpu] ?? 0);
    const stack = (s.location_id ?? []).flatMap((id: number) => locations.get(Number(id)) ?? []);
    if (stack.length === 0 || value === 0) continue;
    at(stack[0]!).self += value;
    for (const key of new Set<string>(stack)) at(key).incl += value;
  }
  return out;
}

async function allHotspots(
  ref: string,
  granularity: "function" | "line",
): Promise<{ first: HotspotsResult; items: Hotspot[] }> {
  const first = await service.analyzeHotspots(ref, { limit: 200, metric: "cpu_time", granularity });
  const items = [...first.items];
  for (let cursor = first.next_cursor; cursor; ) {
    const page = await service.analyzeHotspots(ref, {
      limit: 200,
      metric: "cpu_time",
      granularity,
      cursor,
    });
    items.push(...page.items);
    cursor = page.next_cursor;
  }
  return { first, items };
}

describe("hotspots per function", () => {
  test("pprof CPU profiles: one row per function, self and inclusive equal a walk of the raw " +
    "samples", async () => {
    let compared = 0;
    let splitFunctions = 0;
    for (const file of corpusFiles("pprof")) {
      const reference = referenceByFunction(readFileSync(file.path));
      if (!reference) continue;
      const imported = await service.importArtifact({ path: file.path });
      const { first, items } = await allHotspots(imported.artifact_id, "function");
      // A profile without sample types (one corpus edge case) is read as plain samples.
      if (!first.metrics_available.includes("cpu_time")) continue;
      expect(first.granularity).toBe("function");
      const keys = items.map((h) => `${h.function} @ ${h.file ?? ""}`);
      expect(new Set(keys).size).toBe(keys.length);
      const mine = new Map(
        items.map((h) => [
          `${h.function} @ ${h.file ?? ""}`,
          { self: h.self_value, incl: h.inclusive_value },
        ]),
      );
      const expected = new Map([...reference].filter(([, v]) => v.self > 0 || v.incl > 0));
      expect(new Map([...mine].sort())).toEqual(new Map([...expected].sort()));
      // The same profile per stored frame (line) has at least as many rows, and as much self time.
      const lines = await allHotspots(imported.artifact_id, "line");
      expect(lines.items.length).toBeGreaterThanOrEqual(items.length);
      expect(lines.items.reduce((n, h) => n + h.self_value, 0)).toBe(
        items.reduce((n, h) => n + h.self_value, 0),
      );
      if (lines.items.length > items.length) splitFunctions++;
      // Callers of the function spread over the most lines, at function granularity, equal the raw
      // walk.
      const spread = items
        .filter((h) => h.frames > 1)
        .sort((a, b) => b.frames - a.frames || b.inclusive_value - a.inclusive_value)[0];
      if (spread) {
        const callers = await service.stacks("callers", imported.artifact_id, spread.frame_id, {
          metric: "cpu_time",
          limit: 200,
        });
        expect(callers.granularity).toBe("function");
        expect(callers.frames).toBe(spread.frames);
        const got = new Map(
          (callers.items as { function: string; file: string | null; duration_ns: number }[]).map(
            (c) => [`${c.function} @ ${c.file ?? ""}`, c.duration_ns],
          ),
        );
        expect(new Map([...got].sort())).toEqual(
          new Map(
            [
              ...referenceCallers(
                rawProfile(readFileSync(file.path))!,
                `${spread.function} @ ${spread.file ?? ""}`,
              ),
            ].sort(),
          ),
        );
        // The stored frame alone sees only part of them.
        const one = await service.stacks("callers", imported.artifact_id, spread.frame_id, {
          metric: "cpu_time",
          limit: 200,
          granularity: "line",
        });
        expect(one.frames).toBe(1);
        expect(
          one.items.reduce((n, c) => n + (c as { duration_ns: number }).duration_ns, 0),
        ).toBeLessThanOrEqual([...got.values()].reduce((n, v) => n + v, 0));
      }
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
    // At least one profile stores a function over several lines, so grouping is exercised.
    expect(splitFunctions).toBeGreaterThan(0);
  }, 120_000);

  test("pseudo-frames are left out on request, and the result says what and how much", async () => {
    const file =
      corpusFiles("cpuprofile").find((f) => f.name.includes("node20.20.2-work")) ??
      corpusFiles("cpuprofile")[0]!;
    const imported = await service.importArtifact({ path: file.path });
    const all = await service.analyzeHotspots(imported.artifact_id, { limit: 200 });
    expect(all.excluded).toBeNull();
    const pseudo = all.items.filter((h) =>
      ["(idle)", "(program)", "(garbage collector)", "(root)"].includes(h.function),
    );
    const without = await service.analyzeHotspots(imported.artifact_id, {
      limit: 200,
      excludePseudoFrames: true,
    });
    expect(without.items.some((h) => pseudo.some((p) => p.function === h.function))).toBe(false);
    expect([...without.excluded!.functions].sort()).toEqual(pseudo.map((h) => h.function).sort());
    const excludedSelf = pseudo.reduce((n, h) => n + h.self_value, 0);
    expect(without.excluded!.self_value).toBe(excludedSelf);
    // Shares stay shares of everything measured.
    expect(without.coverage.total_self_value).toBe(all.coverage.total_self_value);
    expect(pseudo.length).toBeGreaterThan(0);
    // Anonymous functions are told apart by where they are defined, never merged by name.
    const byLine = await service.analyzeHotspots(imported.artifact_id, {
      limit: 200,
      granularity: "line",
    });
    const anonymous = (r: { items: Hotspot[] }) =>
      r.items.filter((h) => h.function === "(anonymous)" || h.function === "").length;
    expect(anonymous(byLine)).toBeGreaterThan(1);
    expect(anonymous(all)).toBe(anonymous(byLine));
  }, 60_000);
});
