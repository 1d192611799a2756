/**
 * A StackMeasures with a twin metric (stack-measures.ts) walks each stack once for two metrics
 * that always get the same (path, track, count). Its rows must be, row for row and in the same
 * order, those of two StackMeasures fed separately: measurements, call edges and stacks, with
 * the cache hitting and resting, tries spilling (several runs, merged), several tracks, and
 * zero and huge values, whose sums are only equal when added in the same order.
 */
import { describe, expect, test } from "bun:test";
import type { FrameRegistry } from "../../src/adapters/common/frame-registry.ts";
import { SampledStacks } from "../../src/adapters/common/sampled-stacks.ts";
import { writeStackChunks } from "../../src/adapters/common/stack-chunks.ts";
import { StackMeasures } from "../../src/adapters/common/stack-measures.ts";
import type { StackSpill } from "../../src/adapters/common/stack-trie.ts";
import { NsClock } from "../../src/adapters/common/time-ns.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import type { ColumnBatch } from "../../src/domain/column-batch.ts";
import { EVIDENCE_SCHEMAS } from "../../src/domain/evidence-schema.ts";
import { TableBuffer } from "../../src/domain/table-buffer.ts";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { numberedFrames } from "./numbered-frames.ts";
import { bufferRows, streamedRows } from "./stream-harness.ts";

interface Sample {
  path: number[];
  track: number;
  count: number;
  value: number;
  twin: number;
  first: number;
}

const FRAMES = 200;

const frames = (): FrameRegistry => numberedFrames(FRAMES);

/**
 * A value: zero, small, or odd and near 2^52, so that sums pass 2^53 and round, and come out
 * equal only when added in the same order.
 */
function value(rnd: () => number): number {
  const kind = rnd();
  if (kind < 0.2) return 0;
  if (kind < 0.35) return 2 ** 52 + 2 * Math.floor(rnd() * 1e6) + 1;
  return Math.floor(rnd() * 1e6);
}

/** `n` samples on 4 tracks, from `poolSize` stacks (recursive ones too): some repeat, most not. */
function samples(seed: number, poolSize: number, n: number): Sample[] {
  const rnd = mulberry32(seed);
  const pool: number[][] = [];
  for (let s = 0; s < poolSize; s++) {
    const depth = 1 + Math.floor(rnd() * 10);
    const path: number[] = [];
    for (let d = 0; d < depth; d++)
      path.push(d > 1 && rnd() < 0.2 ? path[d - 2]! : Math.floor(rnd() * FRAMES));
    pool.push(path);
  }
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      path: pool[Math.floor(rnd() * rnd() * poolSize)]!,
      track: Math.floor(rnd() * 4),
      count: rnd() < 0.05 ? 2 ** 40 : 1 + Math.floor(rnd() * 5),
      value: value(rnd),
      twin: value(rnd),
      first: rnd() < 0.5 ? i * 10 : Number.POSITIVE_INFINITY,
    });
  }
  return out;
}

const trackInfo = (t: number) => ({ id: `t${t}`, processName: `p${t}`, threadName: null });

/** Measurements, edges and stacks (TableBuffer rows, in emitted order) of accumulators. */
function emitted(all: readonly StackMeasures[], registry: FrameRegistry) {
  const measurements = new TableBuffer(EVIDENCE_SCHEMAS.frame_measurements);
  const edges = new TableBuffer(EVIDENCE_SCHEMAS.call_edges);
  const stacks = new TableBuffer(EVIDENCE_SCHEMAS.stacks);
  for (const m of all) m.measures.emit(measurements, edges, registry, trackInfo);
  for (const m of all) m.stacks.emit(stacks, registry, new NsClock(0), trackInfo);
  return {
    measurements: bufferRows(measurements),
    edges: bufferRows(edges),
    stacks: bufferRows(stacks),
  };
}

/** The stacks as a streaming sink gets them, in order. */
async function streamed(all: readonly StackMeasures[], registry: FrameRegistry) {
  const batches: ColumnBatch[] = [];
  await writeStackChunks(
    { writeBatch: async (b) => void batches.push(b) },
    all.map((m) => m.stacks),
    registry,
    new NsClock(0),
    trackInfo,
    7,
  );
  return streamedRows(batches, "stacks");
}

function fed(all: Sample[], spill?: () => StackSpill) {
  const space = spill?.();
  const bytes = new StackMeasures("alloc_space", "bytes", space);
  const objects = new StackMeasures("alloc_objects", "count", spill?.());
  const twin = new StackMeasures("alloc_space", "bytes", spill?.(), {
    metric: "alloc_objects",
    unit: "count",
  });
  for (const s of all) {
    bytes.add(s.path, s.track, s.count, s.value, s.first);
    objects.add(s.path, s.track, s.count, s.twin, s.first);
    twin.add(s.path, s.track, s.count, s.value, s.first, s.twin);
  }
  return { separate: [bytes, objects], twin };
}

const cases: { name: string; seed: number; pool: number; n: number; maxStacks?: number }[] = [
  { name: "repeated stacks (cache hits)", seed: 1, pool: 40, n: 3000 },
  { name: "mostly new stacks (cache rests)", seed: 2, pool: 60_000, n: 40_000 },
  { name: "spilling every few stacks", seed: 3, pool: 500, n: 4000, maxStacks: 5 },
  { name: "spilling into many runs", seed: 4, pool: 5000, n: 8000, maxStacks: 60 },
];

describe("a twin metric gives the rows of two separate StackMeasures", () => {
  for (const c of cases) {
    const spill =
      c.maxStacks === undefined
        ? undefined
        : () => ({ space: new MemorySpillSpace(), maxStacks: c.maxStacks });
    test(`${c.name}: measurements, edges and stacks`, () => {
      const registry = frames();
      const all = samples(c.seed, c.pool, c.n);
      const { separate, twin } = fed(all, spill);
      const expected = emitted(separate, registry);
      const got = emitted([twin], registry);
      expect(expected.measurements.length).toBeGreaterThan(0);
      expect(expected.stacks.some((r) => r.metric === "alloc_objects")).toBe(true);
      expect(got.measurements).toEqual(expected.measurements);
      expect(got.edges).toEqual(expected.edges);
      expect(got.stacks).toEqual(expected.stacks);
    });
    test(`${c.name}: streamed stacks`, async () => {
      const registry = frames();
      const all = samples(c.seed, c.pool, c.n);
      const { separate, twin } = fed(all, spill);
      const expected = await streamed(separate, registry);
      expect(await streamed([twin], registry)).toEqual(expected);
    });
  }

  test("a spilled trie gives the twin's stacks first as well as second", () => {
    const all = samples(7, 3000, 5000);
    const spill = () => ({ space: new MemorySpillSpace(), maxStacks: 50 });
    const rows = (rows: Iterable<{ path: Int32Array; count: number; durationNs: number }>) =>
      Array.from(rows, (r) => `${r.path.join(",")}:${r.count}:${r.durationNs}`);
    const { separate, twin } = fed(all, spill);
    const objects = rows(separate[1]!.stacks.stackRows());
    const bytes = rows(separate[0]!.stacks.stackRows());
    expect(objects.length).toBeGreaterThan(50);
    expect(rows(twin.stacks.stackRows(true))).toEqual(objects);
    expect(rows(twin.stacks.stackRows(false))).toEqual(bytes);
  });

  test("the twin's values are its own: swapping them changes the rows", () => {
    const registry = frames();
    const all = samples(5, 300, 2000);
    const { separate } = fed(all);
    const swapped = new StackMeasures("alloc_space", "bytes", undefined, {
      metric: "alloc_objects",
      unit: "count",
    });
    for (const s of all) swapped.add(s.path, s.track, s.count, s.twin, s.first, s.value);
    const expected = emitted(separate, registry);
    const got = emitted([swapped], registry);
    expect(got.measurements).not.toEqual(expected.measurements);
    expect(got.edges).not.toEqual(expected.edges);
    expect(got.stacks).not.toEqual(expected.stacks);
  });
});

describe("SampledStacks twin metrics", () => {
  async function tables(twin: boolean, all: Sample[]) {
    const out = new SampledStacks({ spill: new MemorySpillSpace(), maxStacksInMemory: 40 });
    const registry = frames();
    for (let f = 0; f < FRAMES; f++) out.frames.intern(`f${f}`, registry.records[f]!);
    for (const s of all) {
      if (twin) {
        const m = out.twinMetrics("alloc_space", "bytes", "alloc_objects", "count");
        m.add(s.path, 0, s.count, s.value, Number.POSITIVE_INFINITY, s.twin);
      } else {
        out.metric("alloc_space", "bytes").add(s.path, 0, s.count, s.value);
        out.metric("alloc_objects", "count").add(s.path, 0, s.count, s.twin);
      }
    }
    const batches: ColumnBatch[] = [];
    const small = await out.emitStreamed({ writeBatch: async (b) => void batches.push(b) });
    return {
      metrics: out.metrics,
      stacks: streamedRows(batches, "stacks"),
      frames: bufferRows(small.frames),
      measurements: bufferRows(small.frame_measurements),
      edges: bufferRows(small.call_edges),
    };
  }

  test("streamed tables equal those of two metrics summed apart, with spilling", async () => {
    const all = samples(6, 2000, 3000);
    const expected = await tables(false, all);
    const got = await tables(true, all);
    expect(got.metrics).toEqual(["alloc_space", "alloc_objects"]);
    expect(expected.stacks.length).toBeGreaterThan(80);
    expect(got).toEqual(expected);
  });

  test("a twin metric cannot be taken as a metric of its own, nor the other way round", () => {
    const out = new SampledStacks();
    out.twinMetrics("inuse_space", "bytes", "inuse_objects", "count");
    expect(() => out.metric("inuse_objects", "count")).toThrow(/twin of inuse_space/);
    expect(() => out.twinMetrics("inuse_space", "bytes", "alloc_objects", "count")).toThrow();
    out.metric("alloc_space", "bytes");
    expect(() => out.twinMetrics("samples", "count", "alloc_space", "bytes")).toThrow();
  });
});
