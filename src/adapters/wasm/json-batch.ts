/**
 * Read access to one batch of records emitted by the WASM JSON scanner. Views point
 * into the scanner's memory and are valid only until the batch is drained: callers copy
 * what they keep (numbers into their own typed arrays, strings as ids, texts decoded).
 */
import type { HostStrings } from "./host-strings.ts";

export const TAG_ABSENT = 0;
export const TAG_STRING = 1;
export const TAG_NUMBER = 2;
export const TAG_TRUE = 3;
export const TAG_FALSE = 4;
export const TAG_NULL = 5;
export const TAG_OBJECT = 6;
export const TAG_ARRAY = 7;
export const TAG_JSON = 8;
const KIND_MASK = 15;
export const TAG_SLOW = 16;
export const TAG_TRUNCATED = 32;

const utf8 = new TextDecoder("utf-8");

export class JsonBatch {
  count = 0;
  private i32 = new Int32Array(0);
  private f64 = new Float64Array(0);
  private strideWords = 0;
  private base = 0;
  private text = new Uint8Array(0);
  private runWords = new Int32Array(0);
  private runValues = new Float64Array(0);
  /** Number runs in this batch (MODE_NUMBER_RUN). */
  runs = 0;

  constructor(readonly strings: HostStrings) {}

  /** Re-points the batch at the scanner's current output (called by the scanner). */
  reset(
    memory: ArrayBuffer,
    recordsPtr: number,
    count: number,
    stride: number,
    textPtr: number,
    textBytes: number,
  ): void {
    this.i32 = new Int32Array(memory);
    this.f64 = new Float64Array(memory);
    this.base = recordsPtr >> 2;
    this.strideWords = stride >> 2;
    this.count = count;
    this.text = new Uint8Array(memory, textPtr, textBytes);
  }

  /** Points the batch at the scanner's number runs (called by the scanner after `reset`). */
  resetRuns(memory: ArrayBuffer, runsPtr: number, runs: number, valuesPtr: number): void {
    this.runs = runs;
    this.runWords = new Int32Array(memory, runsPtr, runs * 2);
    let values = 0;
    for (let i = 0; i < runs; i++) values += this.runWords[2 * i + 1]!;
    this.runValues = new Float64Array(memory, valuesPtr, values);
  }

  /**
   * Each run of numbers, in document order: the record type of its elements and their values
   * (a view, valid until the batch is drained), NaN where an element was not a number.
   */
  forEachRun(each: (type: number, values: Float64Array) => void): void {
    for (let i = 0, at = 0; i < this.runs; i++) {
      const count = this.runWords[2 * i + 1]!;
      each(this.runWords[2 * i]!, this.runValues.subarray(at, at + count));
      at += count;
    }
  }

  type(r: number): number {
    return this.i32[this.base + r * this.strideWords]! & 0xffff;
  }
  special(r: number): boolean {
    return ((this.i32[this.base + r * this.strideWords]! >> 16) & 1) === 1;
  }
  /** Whether this is only the announcement of a record that just opened (no slots yet). */
  announced(r: number): boolean {
    return ((this.i32[this.base + r * this.strideWords]! >> 17) & 1) === 1;
  }
  /** Position of the record's value in its container (element index or key ordinal). */
  index(r: number): number {
    return this.i32[this.base + r * this.strideWords + 1]! >>> 4;
  }
  /** Tag kind of the record's own value (e.g. TAG_OBJECT for an event object). */
  selfKind(r: number): number {
    return this.i32[this.base + r * this.strideWords + 1]! & KIND_MASK;
  }
  serial(r: number): number {
    return this.i32[this.base + r * this.strideWords + 2]!;
  }
  parent(r: number): number {
    return this.i32[this.base + r * this.strideWords + 3]!;
  }
  tag(r: number, slot: number): number {
    return this.i32[this.base + r * this.strideWords + 4 + slot * 4]!;
  }
  kind(r: number, slot: number): number {
    return this.tag(r, slot) & KIND_MASK;
  }
  int(r: number, slot: number): number {
    return this.i32[this.base + r * this.strideWords + 4 + slot * 4 + 1]!;
  }
  num(r: number, slot: number): number {
    return this.f64[((this.base + r * this.strideWords + 4 + slot * 4) >> 1) + 1]!;
  }
  /** Canonical string id of a TAG_STRING slot, else -1. */
  stringId(r: number, slot: number): number {
    return this.kind(r, slot) === TAG_STRING ? this.strings.id(this.int(r, slot)) : -1;
  }
  string(r: number, slot: number): string | undefined {
    return this.kind(r, slot) === TAG_STRING
      ? this.strings.get(this.strings.id(this.int(r, slot)))
      : undefined;
  }
  /** The batch's text bytes: a text slot's text is `textLength` bytes from `textOffset`. */
  get textMemory(): Uint8Array {
    return this.text;
  }
  textOffset(r: number, slot: number): number {
    return this.num(r, slot);
  }
  textLength(r: number, slot: number): number {
    return this.int(r, slot);
  }
  textBytes(r: number, slot: number): Uint8Array {
    const offset = this.num(r, slot);
    return this.text.subarray(offset, offset + this.int(r, slot));
  }
  /** A TAG_JSON slot's text, canonical (the host re-serializes slow texts). */
  json(r: number, slot: number): string {
    const text = utf8.decode(this.textBytes(r, slot));
    return (this.tag(r, slot) & TAG_SLOW) !== 0 ? JSON.stringify(JSON.parse(text)) : text;
  }
  /** The slot's value as JSON.parse would have produced it (strings, numbers, literals, JSON). */
  value(r: number, slot: number): unknown {
    switch (this.kind(r, slot)) {
      case TAG_STRING:
        return this.string(r, slot);
      case TAG_NUMBER:
        return this.num(r, slot);
      case TAG_TRUE:
        return true;
      case TAG_FALSE:
        return false;
      case TAG_NULL:
        return null;
      case TAG_JSON:
        return JSON.parse(utf8.decode(this.textBytes(r, slot)));
      case TAG_OBJECT:
        return {};
      case TAG_ARRAY:
        return [];
      default:
        return undefined;
    }
  }
}

/** A stand-in value of a tag's JSON type, for error messages that name the type found. */
export function sampleOfKind(kind: number): unknown {
  return [undefined, "", 0, true, false, null, {}, [], {}][kind];
}
