/**
 * StackMeasures replays repeated stacks from a cache (src/adapters/common/stack-path-cache.ts).
 * Whatever the cache does (hits, misses, starting empty when full, resting when few lookups hit,
 * a trie that spills under it), the measurements, edges and stacks must be those of a naive
 * count made here: per stack, each distinct frame once toward its inclusive total, each
 * distinct edge once, the leaf's self, and one stack row per distinct path.
 */
import { describe, expect, test } from "bun:test";
import type { FrameRegistry } from "../../src/adapters/common/frame-registry.ts";
import { StackMeasures } from "../../src/adapters/common/stack-measures.ts";
import { NsClock } from "../../src/adapters/common/time-ns.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import { EVIDENCE_SCHEMAS } from "../../src/domain/evidence-schema.ts";
import { TableBuffer } from "../../src/domain/table-buffer.ts";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { numberedFrames } from "./numbered-frames.ts";
import { bufferRows } from "./stream-harness.ts";

interface Sample {
  path: number[];
  track: number;
  count: number;
  value: number;
  first: number;
}

const FRAMES = 300;

const frames = (): FrameRegistry => numberedFrames(FRAMES);

/** Samples drawn from `poolSize` stacks (with recursion), on 3 tracks, `n` of them. */
function samples(seed: number, poolSize: number, n: number): Sample[] {
  const rnd = mulberry32(seed);
  const pool: number[][] = [];
  for (let s = 0; s < poolSize; s++) {
    const depth = 1 + Math.floor(rnd() * 12);
    const path: number[] = [];
    for (let d = 0; d < depth; d++)
      path.push(d > 1 && rnd() < 0.15 ? path[d - 2]! : Math.floor(rnd() * FRAMES));
    pool.push(path);
  }
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) {
    const count = 1 + Math.floor(rnd() * 3);
    out.push({
      path: pool[Math.floor(rnd() * rnd() * poolSize)]!,
      track: Math.floor(rnd() * 3),
      count,
      value: count * 1000 + Math.floor(rnd() * 999),
      first: rnd() < 0.5 ? i * 10 : Number.POSITIVE_INFINITY,
    });
  }
  return out;
}

const trackInfo = (t: number) => ({ id: `t${t}`, processName: `p${t}`, threadName: null });

function emitted(m: StackMeasures, registry: FrameRegistry) {
  const measurements = new TableBuffer(EVIDENCE_SCHEMAS.frame_measurements);
  const edges = new TableBuffer(EVIDENCE_SCHEMAS.call_edges);
  const stacks = new TableBuffer(EVIDENCE_SCHEMAS.stacks);
  m.measures.emit(measurements, edges, registry, trackInfo);
  m.stacks.emit(stacks, registry, new NsClock(0), trackInfo);
  return {
    measurements: bufferRows(measurements),
    edges: bufferRows(edges),
    stacks: bufferRows(stacks),
  };
}

/** The same counts made naively, into a StackMeasures-shaped emit through one-shot tries. */
function reference(all: Sample[], registry: FrameRegistry) {
  const incl = new Map<string, [number, number]>();
  const self = new Map<string, [number, number]>();
  const edges = new Map<string, [number, number, number, number]>();
  void registry;
  const stacks = new Map<string, { count: number; value: number; first: number; track: number }>();
  const bump = (map: Map<string, [number, number]>, k: string, s: Sample) => {
    const t = map.get(k) ?? [0, 0];
    map.set(k, [t[0] + s.count, t[1] + s.value]);
  };
  for (const s of all) {
    for (const f of new Set(s.path)) bump(incl, `${s.track}:${f}`, s);
    bump(self, `${s.track}:${s.path[s.path.length - 1]}`, s);
    const pairs = new Set(s.path.slice(1).map((f, d) => `${s.path[d]}>${f}`));
    for (const p of pairs) {
      const [a, b] = p.split(">").map(Number);
      const e = edges.get(p) ?? [a!, b!, 0, 0];
      edges.set(p, [a!, b!, e[2] + s.count, e[3] + s.value]);
    }
    const k = s.path.join(",");
    const st = stacks.get(k);
    if (!st) stacks.set(k, { count: s.count, value: s.value, first: s.first, track: s.track });
    else {
      st.count += s.count;
      st.value += s.value;
      st.first = Math.min(st.first, s.first);
      if (st.track !== s.track) st.track = -2;
    }
  }
  return { incl, self, edges, stacks, registry };
}

function expectSame(m: StackMeasures, all: Sample[]): void {
  const registry = frames();
  const got = emitted(m, registry);
  const ref = reference(all, registry);
  const index = new Map(registry.ids.map((id, f) => [id, f]));
  const measurements = got.measurements.map((r) => [
    `${String(r.track_id).slice(1)}:${index.get(String(r.frame_id))}`,
    ...[r.inclusive_samples, r.inclusive_value, r.self_samples, r.self_value].map(Number),
  ]);
  const keys = [...new Set([...ref.incl.keys(), ...ref.self.keys()])];
  const expected = keys.map((k) => [
    k,
    ...(ref.incl.get(k) ?? [0, 0]),
    ...(ref.self.get(k) ?? [0, 0]),
  ]);
  const order = (a: (string | number)[], b: (string | number)[]) =>
    String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0;
  expect(measurements.sort(order)).toEqual(expected.sort(order));
  const edges = got.edges.map((r) => [
    `${index.get(String(r.parent_frame_id))}>${index.get(String(r.child_frame_id))}`,
    Number(r.sample_count),
    Number(r.duration_ns),
  ]);
  const expectedEdges = [...ref.edges].map(([k, e]) => [k, e[2], e[3]]);
  expect(edges.sort(order)).toEqual(expectedEdges.sort(order));
  const stacks = got.stacks.map((r) => [
    (r.frame_ids as string[]).map((id) => index.get(id)).join(","),
    Number(r.sample_count),
    Number(r.duration_ns),
    r.first_ts_ns === null ? null : Number(r.first_ts_ns),
    r.track_id,
  ]);
  const expectedStacks = [...ref.stacks].map(([k, st]) => [
    k,
    st.count,
    st.value,
    Number.isFinite(st.first) ? st.first : null,
    st.track >= 0 ? `t${st.track}` : null,
  ]);
  expect(stacks.sort(order as never)).toEqual(expectedStacks.sort(order as never));
}

function measure(all: Sample[], maxStacks?: number): StackMeasures {
  const m = new StackMeasures(
    "samples",
    "count",
    maxStacks ? { space: new MemorySpillSpace(), maxStacks } : undefined,
  );
  for (const s of all) m.add(s.path, s.track, s.count, s.value, s.first);
  return m;
}

describe("stack path cache", () => {
  test("repeated stacks replayed from the cache count as the naive count does", () => {
    const all = samples(1, 500, 20_000);
    const m = measure(all);
    expect(m.cacheHits).toBeGreaterThan(15_000);
    expectSame(m, all);
  });

  test("a trie that spills under the cache: replayed stacks are interned again", () => {
    const all = samples(2, 400, 12_000);
    const m = measure(all, 64);
    expect(m.stacks.epoch).toBeGreaterThan(3);
    expect(m.cacheHits).toBeGreaterThan(8_000);
    expectSame(m, all);
  });

  test("more distinct stacks than the cache holds: it starts empty and stays exact", () => {
    const all = samples(3, 40_000, 50_000);
    const m = measure(all);
    expectSame(m, all);
  });

  test("few hits: the cache rests, and counts stay exact when stacks repeat again", () => {
    const unique = samples(4, 20_000, 20_000).map((s, i) => ({ ...s, path: [...s.path, i % 250] }));
    const repeated = samples(5, 50, 20_000);
    const all = [...unique, ...repeated, ...unique.slice(0, 3_000)];
    const m = measure(all);
    expectSame(m, all);
  });
});
