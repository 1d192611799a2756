/**
 * One column of a Firefox Profiler table as it streams in: each element's JSON kind (a
 * scanner tag) and value (a number, a string id, or the ordinal of a payload object's
 * summary) in typed arrays, 9 bytes an element, never a JS value per element. The bulk
 * columns (samples, markers) are buffered until their thread's tables are known and, given
 * scratch space, spill whole blocks to a file once a block is full, to be read back in
 * order; the reference tables (frames, stacks, funcs) stay in memory for random access.
 */
import type { SpillFile, SpillSpace } from "../adapter.ts";
import { GrowableF64, GrowableU8 } from "../common/growable.ts";
import { TAG_ABSENT } from "../wasm/json-batch.ts";

/** Elements a spilling column holds in memory before writing a block. */
export const SPILL_BLOCK = 1 << 18;
/** Elements below which a parked column stays in memory (a spill file would cost more). */
const PARK_MIN = 4096;

export class CellColumn {
  private kinds = new GrowableU8();
  private values = new GrowableF64();
  private file: SpillFile | null = null;
  /** Elements already in the spill file. */
  private spilled = 0;

  constructor(
    private readonly spill: SpillSpace | null = null,
    private readonly block = SPILL_BLOCK,
  ) {}

  get length(): number {
    return this.spilled + this.kinds.length;
  }

  push(kind: number, value: number): void {
    this.kinds.push(kind);
    this.values.push(value);
    if (this.spill !== null && this.kinds.length >= this.block) this.writeBlock();
  }

  /** Absent elements up to `length` (a raw row shorter than others). */
  padTo(length: number): void {
    while (this.length < length) this.push(TAG_ABSENT, 0);
  }

  kind(i: number): number {
    this.inMemory(i);
    return i < this.kinds.length ? this.kinds.array[i]! : TAG_ABSENT;
  }

  value(i: number): number {
    this.inMemory(i);
    return this.values.array[i]!;
  }

  /** A reader of the elements in order (spilled blocks first). */
  reader(): CellReader {
    return new CellReader(this.file, this.spilled, this.kinds, this.values, this.block);
  }

  /**
   * The column is complete and will wait: its in-memory tail goes to the spill file too
   * (padded to a whole block, so blocks keep their offsets) and its arrays are let go, so a
   * held thread keeps only its reference tables in memory. Short columns stay as they are.
   */
  park(): void {
    // (Tests lower the block, and the threshold with it, to exercise parked columns.)
    const least = Math.min(PARK_MIN, Math.max(1, this.block >> 1));
    if (this.spill === null || this.kinds.length < least) return;
    this.writeBlock(true);
    this.kinds = new GrowableU8();
    this.values = new GrowableF64();
  }

  dispose(): void {
    this.file?.dispose();
    this.file = null;
  }

  private inMemory(i: number): void {
    if (this.spilled > 0) throw new RangeError(`Random access to element ${i} of a spilled column`);
  }

  private writeBlock(padded = false): void {
    this.file ??= this.spill!.create();
    const n = this.kinds.length;
    const width = padded ? this.block : n;
    this.file.append(new Uint8Array(this.values.array.buffer, 0, n * 8));
    if (width > n) this.file.append(new Uint8Array((width - n) * 8));
    this.file.append(this.kinds.array.subarray(0, n));
    if (width > n) this.file.append(new Uint8Array(width - n));
    this.spilled += n;
    this.kinds.length = 0;
    this.values.length = 0;
  }
}

/** Sequential reads of a column; elements past its end read as absent. */
export class CellReader {
  kind = TAG_ABSENT;
  value = 0;
  private at = 0;
  private blockStart = 0;
  private blockLength = 0;
  private blockKinds: Uint8Array;
  private blockValues: Float64Array;

  constructor(
    private readonly file: SpillFile | null,
    private readonly spilled: number,
    private readonly memKinds: GrowableU8,
    private readonly memValues: GrowableF64,
    private readonly block: number,
  ) {
    this.blockKinds = file ? new Uint8Array(0) : memKinds.array;
    this.blockValues = file ? new Float64Array(0) : memValues.array;
    this.blockLength = file ? 0 : memKinds.length;
  }

  /** Moves to the next element (the first on the first call). */
  next(): void {
    const i = this.at++ - this.blockStart;
    if (i < this.blockLength) {
      this.kind = this.blockKinds[i]!;
      this.value = this.blockValues[i]!;
      return;
    }
    if (!this.load()) {
      this.kind = TAG_ABSENT;
      this.value = 0;
      return;
    }
    this.kind = this.blockKinds[0]!;
    this.value = this.blockValues[0]!;
  }

  /** The block holding element `at - 1`; false past the end. */
  private load(): boolean {
    const index = this.at - 1;
    if (index >= this.spilled + this.memKinds.length) return false;
    this.blockStart = index;
    if (index >= this.spilled) {
      // The in-memory tail, after the spilled blocks.
      this.blockKinds = this.memKinds.array;
      this.blockValues = this.memValues.array;
      this.blockStart = this.spilled;
      this.blockLength = this.memKinds.length;
      // Re-base so that `index` maps to its place in the tail.
      const i = index - this.spilled;
      this.blockKinds = this.blockKinds.subarray(i);
      this.blockValues = this.blockValues.subarray(i);
      this.blockStart = index;
      this.blockLength -= i;
      return this.blockLength > 0;
    }
    // Spilled blocks are `block` elements each: values, then kinds.
    const block = this.block;
    const n = Math.min(block, this.spilled - index);
    const base = (index / block) * block * 9;
    if (this.blockValues.length < n) {
      this.blockValues = new Float64Array(block);
      this.blockKinds = new Uint8Array(block);
    }
    this.file!.read(new Uint8Array(this.blockValues.buffer, 0, n * 8), base);
    this.file!.read(this.blockKinds.subarray(0, n), base + block * 8);
    this.blockLength = n;
    return true;
  }
}
