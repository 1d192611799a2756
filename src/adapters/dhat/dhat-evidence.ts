/**
 * A scanned DHAT profile → evidence. First every check, in the order of the document's
 * fields (version, mode, frame table, points one by one), so a wrong file fails naming
 * the first wrong field; then, in the heap modes, each program point's totals become
 * `alloc_space`/`alloc_objects` (all allocations) and, with block lifetimes,
 * `inuse_space`/`inuse_objects` (live at the global peak, t-gmax), on the point's stack
 * (its frames reversed: outermost caller first). Valgrind's replacement allocator
 * (`vgpreload_*.so`: malloc, calloc, operator new…) is left off the allocation end of
 * each stack, as massif leaves the allocation functions out of its trees, so the
 * allocating code is the leaf. Copy and ad-hoc profiles are not heap evidence: they are
 * stated, not imported. Points are read back from the spool twice (checks, then
 * measures); none is held as an object.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { SpoolReader } from "../common/record-spool.ts";
import type { SampledStacks } from "../common/sampled-stacks.ts";
import { valgrindFrame } from "../common/valgrind-frame.ts";
import { expectationFailed, parseFailed, tooLarge } from "../json-guard.ts";
import { TAG_ARRAY, TAG_NUMBER, TAG_OBJECT, TAG_STRING, sampleOfKind } from "../wasm/json-batch.ts";
import { DHAT_POINT_FIELDS, P_GB, P_GBK, P_TB, P_TBK } from "./dhat-program.ts";
import { DHAT_FORMAT, type DhatScan, POINT_HEAD_BYTES } from "./scan-dhat.ts";

const HEAP_MODES = new Set(["heap", "rust-heap"]);
const VALGRIND_ALLOCATOR = /\(in [^)]*\/vgpreload_[^)/]*\.so\)$/;
/** DHAT points have no time. */
const NO_TIME = Number.POSITIVE_INFINITY;

/** One program point read back from the spool (reused from point to point). */
interface Point {
  kinds: number;
  values: Float64Array;
  fs: Int32Array;
  fsLength: number;
}

class PointReader {
  readonly point: Point = {
    kinds: 0,
    values: new Float64Array(4),
    fs: new Int32Array(64),
    fsLength: 0,
  };
  private readonly reader: SpoolReader;

  constructor(scan: DhatScan) {
    this.reader = scan.points.reader();
    for (let i = 0; i < scan.ppsStart; i++) this.next();
  }

  next(): Point {
    const r = this.reader;
    const p = this.point;
    r.need(POINT_HEAD_BYTES);
    p.kinds = r.i32();
    for (let k = 0; k < 4; k++) p.values[k] = r.f64();
    const n = r.i32();
    r.need(4 * n);
    if (p.fs.length < n) p.fs = new Int32Array(Math.max(n, p.fs.length * 2));
    for (let k = 0; k < n; k++) p.fs[k] = r.i32();
    p.fsLength = n;
    return p;
  }
}

const kindOf = (p: Point, slot: number) => (p.kinds >> (4 + 4 * slot)) & 15;
const isCount = (p: Point, slot: number) => {
  const v = p.values[slot]!;
  return kindOf(p, slot) === TAG_NUMBER && Number.isSafeInteger(v) && v >= 0;
};

/**
 * Points read between checkpoints: the passes over the points write no rows, so without
 * them nothing collects their garbage (the tries' and sums' growth) until the first row.
 */
export const POINTS_PER_CHECKPOINT = 1 << 14;

/**
 * A point's place in the document, for errors only: made per point, it was millions of
 * strings (or closures) of garbage in a large profile.
 */
const pointAt = (i: number) => `pps[${i}]`;

/** Every check the document must pass, in the order the fields are defined. */
function checkDhat(scan: DhatScan, maxPoints: number, checkpoint: () => void): string[] {
  if (scan.topKind !== TAG_OBJECT)
    throw expectationFailed(DHAT_FORMAT, "the top level", "an object", sampleOfKind(scan.topKind));
  if (scan.version !== 2)
    throw parseFailed(
      DHAT_FORMAT,
      `expected dhatFileVersion 2 but found ${JSON.stringify(scan.version)}`,
    );
  if (scan.modeKind !== TAG_STRING)
    throw expectationFailed(DHAT_FORMAT, "mode", "a string", sampleOfKind(scan.modeKind));
  if (scan.ftblKind !== TAG_ARRAY || scan.frames.some((f) => f === null))
    throw expectationFailed(
      DHAT_FORMAT,
      "ftbl",
      "an array of strings",
      sampleOfKind(scan.ftblKind),
    );
  if (scan.ppsKind !== TAG_ARRAY)
    throw expectationFailed(DHAT_FORMAT, "pps", "an array", sampleOfKind(scan.ppsKind));
  const frames = scan.frames as string[];
  const points = new PointReader(scan);
  for (let i = 0; i < scan.pointCount; i++) {
    if (i > 0 && i % POINTS_PER_CHECKPOINT === 0) checkpoint();
    const p = points.next();
    if ((p.kinds & 15) !== TAG_OBJECT)
      throw expectationFailed(DHAT_FORMAT, pointAt(i), "an object", sampleOfKind(p.kinds & 15));
    for (const [key, slot] of DHAT_POINT_FIELDS) {
      if (slot === P_GB || slot === P_GBK) {
        if (scan.lifetimes && !isCount(p, slot))
          throw expectationFailed(
            DHAT_FORMAT,
            `${pointAt(i)}.${key}`,
            "a non-negative integer (bklt is true)",
            sampleOfKind(kindOf(p, slot)),
          );
      } else if (!isCount(p, slot))
        throw expectationFailed(
          DHAT_FORMAT,
          `${pointAt(i)}.${key}`,
          "a non-negative integer",
          sampleOfKind(kindOf(p, slot)),
        );
    }
    const fsKind = (p.kinds >> 20) & 15;
    if (fsKind !== TAG_ARRAY)
      throw expectationFailed(DHAT_FORMAT, `${pointAt(i)}.fs`, "an array", sampleOfKind(fsKind));
    for (let k = 0; k < p.fsLength; k++) {
      const f = p.fs[k]!;
      if (f < 0 || f >= frames.length)
        throw expectationFailed(
          DHAT_FORMAT,
          `${pointAt(i)}.fs[${k}]`,
          `a frame index below ${frames.length}`,
          sampleOfKind(f < 0 ? -f : TAG_NUMBER),
        );
    }
  }
  if (scan.pointCount > maxPoints)
    throw tooLarge(DHAT_FORMAT, "program points", scan.pointCount, maxPoints);
  return frames;
}

/**
 * Checks the scan and adds its measures to `out`; the evidence's description. `checkpoint`
 * runs every POINTS_PER_CHECKPOINT points of each pass (checks, then measures) and once
 * after the last.
 */
export function dhatEvidence(
  scan: DhatScan,
  maxPoints: number,
  out: SampledStacks,
  adapter: { name: string; version: string },
  checkpoint: () => void = () => {},
): Omit<NormalizedEvidence, "tables"> {
  const frames = checkDhat(scan, maxPoints, checkpoint);
  const mode = scan.mode!;
  const limitations: Limitation[] = [];
  const heap = HEAP_MODES.has(mode);
  let allocatorFrames = 0;
  let withoutStack = 0;
  if (heap) {
    const frameIndex = new Map<number, number>();
    const frameOf = (i: number) => {
      let f = frameIndex.get(i);
      if (f === undefined) {
        const parsed = valgrindFrame(frames[i]!);
        f = out.frames.intern(parsed.key, parsed.record);
        frameIndex.set(i, f);
      }
      return f;
    };
    // Whether a frame is the replacement allocator, by frame index (0: not yet known): tested
    // once per frame, not once per point.
    const allocator = new Int8Array(frames.length);
    const isAllocator = (i: number) => {
      if (allocator[i] === 0) allocator[i] = VALGRIND_ALLOCATOR.test(frames[i]!) ? 1 : -1;
      return allocator[i] === 1;
    };
    const sums = { alloc: 0, inuse: 0 };
    const alloc = () => out.twinMetrics("alloc_space", "bytes", "alloc_objects", "count");
    const inuse = () => out.twinMetrics("inuse_space", "bytes", "inuse_objects", "count");
    const points = new PointReader(scan);
    const path: number[] = [];
    for (let i = 0; i < scan.pointCount; i++) {
      if (i > 0 && i % POINTS_PER_CHECKPOINT === 0) checkpoint();
      const p = points.next();
      let first = 0;
      while (first < p.fsLength && isAllocator(p.fs[first]!)) first++;
      allocatorFrames += first;
      // Index 0 is DHAT's "[root]" pseudo-frame, never part of a stack.
      path.length = 0;
      for (let k = p.fsLength - 1; k >= first; k--) if (p.fs[k] !== 0) path.push(frameOf(p.fs[k]!));
      if (path.length === 0) {
        withoutStack++;
        continue;
      }
      const tb = p.values[P_TB]!;
      const tbk = p.values[P_TBK]!;
      const gb = scan.lifetimes ? p.values[P_GB]! : null;
      const gbk = scan.lifetimes ? p.values[P_GBK]! : null;
      sums.alloc += tb;
      sums.inuse += gb ?? 0;
      if (sums.alloc > Number.MAX_SAFE_INTEGER)
        throw tooLarge(DHAT_FORMAT, "summed bytes", sums.alloc, Number.MAX_SAFE_INTEGER);
      // Bytes and blocks go to the same stack with the same count: one walk of it for both.
      if (tbk > 0) alloc().add(path, 0, tbk, tb, NO_TIME, tbk);
      if (gbk !== null && gbk > 0) inuse().add(path, 0, gbk, gb!, NO_TIME, gbk);
    }
    checkpoint();
    if (!scan.lifetimes)
      limitations.push({
        code: "no_block_lifetimes",
        message: "The profile did not track block lifetimes (bklt false): no in-use (peak) metrics",
      });
    if (withoutStack > 0)
      limitations.push({
        code: "samples_without_stack",
        message: "Program points with no frame besides the allocator were not attributed",
        count: withoutStack,
      });
  } else {
    limitations.push({
      code: "mode_not_imported",
      message:
        `DHAT ${mode} mode counts copies or ad-hoc events, not heap allocations; nothing was ` +
        `imported from it`,
    });
  }
  const unsymbolized = out.frames.countUnsymbolized();
  if (unsymbolized > 0)
    limitations.push({
      code: "missing_symbols",
      message: "Frames DHAT could not name (???)",
      count: unsymbolized,
    });
  limitations.push(...out.deepStacksLimitation());
  return {
    adapter: adapter.name,
    adapterVersion: adapter.version,
    producer: mode.startsWith("rust") ? "dhat-rs" : "dhat",
    producerVersion: null,
    limitations,
    summary: {
      mode,
      program_points: scan.pointCount,
      frames: out.frames.size,
      allocator_frames_dropped: allocatorFrames,
      block_lifetimes: scan.lifetimes,
      metrics: out.metrics.join(","),
    },
  };
}
