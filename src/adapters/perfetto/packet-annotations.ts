/**
 * A packet's debug annotations (DebugAnnotation messages, still encoded), copied out of the
 * scanner's memory one after another into one arena reused packet after packet, and kept as
 * start/end pairs into it. Not a view per annotation: the scanner's view and the arena's were
 * two typed-array views per annotation, ~4% of a generated 100 MB Perfetto trace's parser
 * thread (`subarray` under `PacketChildren.add`).
 */
import { copyBytes } from "../common/growable.ts";

export class PacketAnnotations {
  /** The arena; annotation `k` is `bytes[ranges[2k], ranges[2k + 1])`. */
  bytes: Uint8Array;
  readonly ranges: number[] = [];
  private used = 0;

  constructor(capacity = 1 << 12) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Annotations held. */
  get length(): number {
    return this.ranges.length >> 1;
  }

  /** Adds the annotation of `length` bytes at `from` in `source`. */
  add(source: Uint8Array, from: number, length: number): void {
    const at = this.used;
    if (at + length > this.bytes.length) {
      let size = Math.max(64, this.bytes.length * 2);
      while (size < at + length) size *= 2;
      const next = new Uint8Array(size);
      // The ranges taken so far point into the arena: its bytes move with it.
      copyBytes(this.bytes, 0, at, next, 0);
      this.bytes = next;
    }
    copyBytes(source, from, length, this.bytes, at);
    this.used = at + length;
    this.ranges.push(at, at + length);
  }

  clear(): void {
    this.ranges.length = 0;
    this.used = 0;
  }

  /**
   * Each annotation as a view of its own, for the paths that decode them to JS values (a V8
   * profile's chunks, args the byte writer leaves to the reference); valid until `add` or `clear`.
   */
  views(): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let k = 0; k < this.ranges.length; k += 2)
      out.push(this.bytes.subarray(this.ranges[k]!, this.ranges[k + 1]!));
    return out;
  }

  /** Annotations from separate buffers, copied into an arena (tests and one-off callers). */
  static of(list: readonly Uint8Array[]): PacketAnnotations {
    const out = new PacketAnnotations(
      Math.max(
        16,
        list.reduce((n, a) => n + a.length, 0),
      ),
    );
    for (const a of list) out.add(a, 0, a.length);
    return out;
  }
}

/** No annotations (an event whose packet has none). */
export const NO_ANNOTATIONS: PacketAnnotations = new PacketAnnotations(0);
