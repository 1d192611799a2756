/**
 * A small protobuf reader for the few nested values the scanner hands over as bytes
 * (OTLP KeyValue attributes, Perfetto debug annotations): bounded, allocation-light,
 * throwing ARTIFACT_PARSE_FAILED on malformed input.
 */
import { parseFailed } from "../json-guard.ts";

export class ProtoReader {
  pos = 0;
  constructor(
    readonly bytes: Uint8Array,
    private readonly format: string,
  ) {}

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.bytes.length || shift > 63n)
        throw parseFailed(this.format, "an invalid varint in a nested value");
      const b = this.bytes[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asUintN(64, result);
      shift += 7n;
    }
  }

  /**
   * A varint of at most seven bytes (below 2^49, exact as a number), or -1 with the position
   * unchanged when it is longer or cut off: the caller then reads it with `varint`, which
   * decides. Most values are short, and a bigint per value cost more than the rest of reading it.
   */
  shortVarint(): number {
    let result = 0;
    let scale = 1;
    const { bytes, pos } = this;
    for (let i = 0; i < 7 && pos + i < bytes.length; i++) {
      const b = bytes[pos + i]!;
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) {
        this.pos = pos + i + 1;
        return result;
      }
      scale *= 128;
    }
    return -1;
  }

  /** A varint as a number (exact below 2^53; tags, lengths, enums, ids). */
  small(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.bytes.length)
        throw parseFailed(this.format, "an invalid varint in a nested value");
      const b = this.bytes[this.pos++]!;
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
    }
    this.pos -= 8;
    return Number(this.varint());
  }

  fixed64(): DataView {
    if (this.pos + 8 > this.bytes.length)
      throw parseFailed(this.format, "a truncated fixed64 in a nested value");
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8);
    this.pos += 8;
    return view;
  }

  fixed32(): DataView {
    if (this.pos + 4 > this.bytes.length)
      throw parseFailed(this.format, "a truncated fixed32 in a nested value");
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 4);
    this.pos += 4;
    return view;
  }

  lengthDelimited(): Uint8Array {
    const length = this.small();
    if (length > this.bytes.length - this.pos)
      throw parseFailed(this.format, "a nested length exceeds its message");
    const out = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  /** Next field: [number, wire type]. */
  tag(): [number, number] {
    const tag = this.small();
    if (tag >>> 3 === 0) throw parseFailed(this.format, "a nested field number 0");
    return [tag >>> 3, tag & 7];
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.fixed64();
    else if (wire === 5) this.fixed32();
    else if (wire === 2) this.lengthDelimited();
    else throw parseFailed(this.format, `a nested wire type ${wire}`);
  }
}

const utf8 = new TextDecoder();
export const decodeUtf8 = (bytes: Uint8Array): string => utf8.decode(bytes);
