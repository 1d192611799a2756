/**
 * Partial stack aggregates spilled by a StackTrie that reached its size limit, and their
 * merge. A trace can hold any number of distinct stacks (names × depth grow combinatorially),
 * so the trie does not grow with the artifact: when full it writes its counted stacks as
 * one run sorted by path (root → leaf frame indices) and starts empty. At the end the
 * runs are merged by path and equal paths combined (counts and durations add, the first
 * time is the minimum, the track survives only if it is the same everywhere), which is
 * what one unbounded trie would have recorded.
 *
 * A run is a sequence of blocks of at most BLOCK_ROWS rows: a 16-byte header (rows, path
 * ints) followed by contiguous columns (float64: count, duration, first; int32: track,
 * path length, then every path), padded to 8 bytes, so a block reads back into typed-array
 * views with one call.
 */
import type { SpillFile, SpillSpace } from "../adapter.ts";

/** Track of a stack whose contributions came from more than one track (see StackTrie). */
export const MIXED_TRACKS = -2;
export const NO_TRACK = -1;

/** One stack: the row and its `path` (a view) are valid until the next row is read. */
export interface StackRow {
  path: Int32Array;
  count: number;
  durationNs: number;
  firstRelNs: number;
  track: number;
}

/** The columns of a trie, as it hands them over when spilling. */
export interface StackColumns {
  size: number;
  parent: Int32Array;
  frame: Int32Array;
  track: Int32Array;
  count: Float64Array;
  durationNs: Float64Array;
  firstRelNs: Float64Array;
}

const BLOCK_ROWS = 8192;
const HEADER_BYTES = 16;
/** Runs merged at once; beyond it runs are first merged into fewer, longer runs. */
const MAX_FAN_IN = 32;

const pad8 = (n: number): number => (n + 7) & ~7;
const bodyBytes = (rows: number, pathInts: number): number => pad8(32 * rows + 4 * pathInts);

export class StackRuns {
  private runs: SpillFile[] = [];
  private readonly writer = new BlockWriter();

  constructor(private readonly space: SpillSpace) {}

  get count(): number {
    return this.runs.length;
  }

  /** The spilled runs, in order, given up by this object (another takes them: `adopt`). */
  handOver(): SpillFile[] {
    const runs = this.runs;
    this.runs = [];
    return runs;
  }

  /** Takes runs another StackRuns spilled (on another thread: reopened here), after its own. */
  adopt(runs: SpillFile[]): void {
    this.runs.push(...runs);
  }

  /** Writes the stacks of `cols` that have samples as one run, sorted by path. */
  spill(cols: StackColumns): void {
    const counted: number[] = [];
    for (let s = 0; s < cols.size; s++) if (cols.count[s]! > 0) counted.push(s);
    // Paths root → leaf, one after another; starts[k] is where the k-th counted stack's begins.
    const starts = new Int32Array(counted.length + 1);
    let total = 0;
    for (let k = 0; k < counted.length; k++) {
      starts[k] = total;
      for (let at = counted[k]!; at >= 0; at = cols.parent[at]!) total++;
    }
    starts[counted.length] = total;
    const paths = new Int32Array(total);
    for (let k = 0; k < counted.length; k++) {
      let i = starts[k + 1]! - 1;
      for (let at = counted[k]!; at >= 0; at = cols.parent[at]!) paths[i--] = cols.frame[at]!;
    }
    const pathOf = (k: number) => paths.subarray(starts[k]!, starts[k + 1]!);
    // Compared in place: a view per comparison would be millions of allocations.
    const order = Array.from(counted.keys()).sort((a, b) => {
      const aEnd = starts[a + 1]!;
      const bEnd = starts[b + 1]!;
      for (let i = starts[a]!, j = starts[b]!; i < aEnd && j < bEnd; i++, j++)
        if (paths[i] !== paths[j]) return paths[i]! - paths[j]!;
      return aEnd - starts[a]! - (bEnd - starts[b]!);
    });
    const file = this.space.create();
    for (const k of order) {
      const s = counted[k]!;
      this.writer.add(
        file,
        pathOf(k),
        cols.count[s]!,
        cols.durationNs[s]!,
        cols.firstRelNs[s]!,
        cols.track[s]!,
      );
    }
    this.writer.flush(file);
    this.runs.push(file);
  }

  /** Every stack once, in path order, equal paths combined; the runs are gone afterwards. */
  *merged(): Generator<StackRow> {
    try {
      while (this.runs.length > MAX_FAN_IN) {
        const file = this.space.create();
        for (const row of mergeRuns(this.runs.slice(0, MAX_FAN_IN)))
          this.writer.add(file, row.path, row.count, row.durationNs, row.firstRelNs, row.track);
        this.writer.flush(file);
        for (const run of this.runs.splice(0, MAX_FAN_IN, file)) run.dispose();
        // The merged run goes last so older, shorter runs are merged first.
        this.runs.push(this.runs.shift()!);
      }
      yield* mergeRuns(this.runs);
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    for (const run of this.runs) run.dispose();
    this.runs = [];
  }
}

export function combineTracks(a: number, b: number): number {
  if (a === NO_TRACK) return b;
  if (b === NO_TRACK || a === b) return a;
  return MIXED_TRACKS;
}

function* mergeRuns(files: readonly SpillFile[]): Generator<StackRow> {
  const heap = files.map((f) => new RunCursor(f)).filter((c) => c.next());
  const before = (a: RunCursor, b: RunCursor) => a.compare(b.v.paths, b.pathAt, b.pathLength()) < 0;
  const down = (k: number) => {
    for (;;) {
      const l = 2 * k + 1;
      if (l >= heap.length) return;
      const r = l + 1;
      const m = r < heap.length && before(heap[r]!, heap[l]!) ? r : l;
      if (!before(heap[m]!, heap[k]!)) return;
      [heap[k], heap[m]] = [heap[m]!, heap[k]!];
      k = m;
    }
  };
  const advanceTop = () => {
    if (!heap[0]!.next()) {
      const last = heap.pop()!;
      if (heap.length > 0 && last !== heap[0]) heap[0] = last;
    }
    if (heap.length > 0) down(0);
  };
  for (let k = (heap.length >> 1) - 1; k >= 0; k--) down(k);
  let scratch = new Int32Array(64);
  while (heap.length > 0) {
    const top = heap[0]!;
    const first = top.path();
    if (first.length > scratch.length)
      scratch = new Int32Array(Math.max(first.length, scratch.length * 2));
    scratch.set(first);
    const path = scratch.subarray(0, first.length);
    const row: StackRow = {
      path,
      count: top.count(),
      durationNs: top.durationNs(),
      firstRelNs: top.firstRelNs(),
      track: top.track(),
    };
    advanceTop();
    while (heap.length > 0 && heap[0]!.compare(path, 0, path.length) === 0) {
      const c = heap[0]!;
      row.count += c.count();
      row.durationNs += c.durationNs();
      row.firstRelNs = Math.min(row.firstRelNs, c.firstRelNs());
      row.track = combineTracks(row.track, c.track());
      advanceTop();
    }
    yield row;
  }
}

/** Buffers rows into blocks and appends each full block to the run being written. */
class BlockWriter {
  private rows = 0;
  private readonly count = new Float64Array(BLOCK_ROWS);
  private readonly durationNs = new Float64Array(BLOCK_ROWS);
  private readonly firstRelNs = new Float64Array(BLOCK_ROWS);
  private readonly track = new Int32Array(BLOCK_ROWS);
  private readonly pathLen = new Int32Array(BLOCK_ROWS);
  private paths = new Int32Array(BLOCK_ROWS * 8);
  private pathInts = 0;

  add(
    file: SpillFile,
    path: Int32Array,
    count: number,
    durationNs: number,
    firstRelNs: number,
    track: number,
  ): void {
    const r = this.rows++;
    this.count[r] = count;
    this.durationNs[r] = durationNs;
    this.firstRelNs[r] = firstRelNs;
    this.track[r] = track;
    this.pathLen[r] = path.length;
    if (this.pathInts + path.length > this.paths.length) {
      const grown = new Int32Array(Math.max(this.paths.length * 2, this.pathInts + path.length));
      grown.set(this.paths.subarray(0, this.pathInts));
      this.paths = grown;
    }
    this.paths.set(path, this.pathInts);
    this.pathInts += path.length;
    if (this.rows === BLOCK_ROWS) this.flush(file);
  }

  flush(file: SpillFile): void {
    const n = this.rows;
    if (n === 0) return;
    const body = new ArrayBuffer(bodyBytes(n, this.pathInts));
    const v = new BlockViews(body, n, this.pathInts);
    v.count.set(this.count.subarray(0, n));
    v.durationNs.set(this.durationNs.subarray(0, n));
    v.firstRelNs.set(this.firstRelNs.subarray(0, n));
    v.track.set(this.track.subarray(0, n));
    v.pathLen.set(this.pathLen.subarray(0, n));
    v.paths.set(this.paths.subarray(0, this.pathInts));
    file.append(new Uint8Array(new Int32Array([n, this.pathInts, 0, 0]).buffer));
    file.append(new Uint8Array(body));
    this.rows = 0;
    this.pathInts = 0;
  }
}

class BlockViews {
  readonly count: Float64Array;
  readonly durationNs: Float64Array;
  readonly firstRelNs: Float64Array;
  readonly track: Int32Array;
  readonly pathLen: Int32Array;
  readonly paths: Int32Array;

  constructor(buffer: ArrayBuffer, n: number, pathInts: number) {
    this.count = new Float64Array(buffer, 0, n);
    this.durationNs = new Float64Array(buffer, 8 * n, n);
    this.firstRelNs = new Float64Array(buffer, 16 * n, n);
    this.track = new Int32Array(buffer, 24 * n, n);
    this.pathLen = new Int32Array(buffer, 28 * n, n);
    this.paths = new Int32Array(buffer, 32 * n, pathInts);
  }
}

/** Reads a run back row by row, one block in memory at a time. */
class RunCursor {
  v = new BlockViews(new ArrayBuffer(0), 0, 0);
  /** Where the current row's path starts in `v.paths`. */
  pathAt = 0;
  private n = 0;
  private i = -1;
  private position = 0;
  private readonly header = new Int32Array(HEADER_BYTES / 4);

  constructor(private readonly file: SpillFile) {}

  next(): boolean {
    if (this.i >= 0) this.pathAt += this.v.pathLen[this.i]!;
    if (this.i + 1 >= this.n && !this.readBlock()) return false;
    this.i++;
    return true;
  }

  path(): Int32Array {
    return this.v.paths.subarray(this.pathAt, this.pathAt + this.v.pathLen[this.i]!);
  }
  pathLength(): number {
    return this.v.pathLen[this.i]!;
  }
  /**
   * Orders the current path against other[at, at + length) (lexicographic, a prefix first), without
   * a view per comparison: the merge's hot loop.
   */
  compare(other: Int32Array, at: number, length: number): number {
    const paths = this.v.paths;
    const mine = this.pathLength();
    const n = Math.min(mine, length);
    for (let k = 0; k < n; k++) {
      const d = paths[this.pathAt + k]! - other[at + k]!;
      if (d !== 0) return d;
    }
    return mine - length;
  }
  count(): number {
    return this.v.count[this.i]!;
  }
  durationNs(): number {
    return this.v.durationNs[this.i]!;
  }
  firstRelNs(): number {
    return this.v.firstRelNs[this.i]!;
  }
  track(): number {
    return this.v.track[this.i]!;
  }

  private readBlock(): boolean {
    if (this.position >= this.file.size) return false;
    this.file.read(new Uint8Array(this.header.buffer), this.position);
    const n = this.header[0]!;
    const pathInts = this.header[1]!;
    const size = bodyBytes(n, pathInts);
    const body = new ArrayBuffer(size);
    this.file.read(new Uint8Array(body), this.position + HEADER_BYTES);
    this.position += HEADER_BYTES + size;
    this.v = new BlockViews(body, n, pathInts);
    this.n = n;
    this.i = -1;
    this.pathAt = 0;
    return n > 0 || this.readBlock();
  }
}
