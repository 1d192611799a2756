/**
 * OTLP protobuf KeyValue bytes → typed canonical attribute JSON, written straight into a
 * byte buffer: byte for byte `canonicalAttributes(protoKeyValue(...))` (proto-values.ts,
 * the readable version), without a JS object or string per attribute. Same rules: the
 * last key and the last recognised value win, unknown fields are skipped, and malformed
 * nested data throws the same parse errors.
 */
import { parseFailed } from "../json-guard.ts";
import type { ByteBuf } from "../common/json-bytes.ts";
import { OTLP_PROTO_FORMAT } from "./proto-values.ts";

// The reader's state lives in module variables: one decode runs at a time, and a
// nested value saves and restores the position around itself.
let src: Uint8Array = new Uint8Array(0);
let pos = 0;
let field = 0;
let wire = 0;

const ascii = (text: string) => new TextEncoder().encode(text);
const EMPTY = ascii('"empty",null');
const STRING = ascii('"string",');
const TRUE = ascii('"bool",true');
const FALSE = ascii('"bool",false');
const INT = ascii('"int","');
const DOUBLE = ascii('"double",');
const ARRAY = ascii('"array",[');
const KVLIST = ascii('"kvlist",[');
const BYTES = ascii('"bytes","');

const float = new Float64Array(1);
const floatBytes = new Uint8Array(float.buffer);

function fail(message: string): Error {
  return parseFailed(OTLP_PROTO_FORMAT, message);
}

/** ProtoReader.varint: up to 10 bytes, the 64 low bits. */
function bigVarint(end: number): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= end || shift > 63n) throw fail("an invalid varint in a nested value");
    const b = src[pos++]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return BigInt.asUintN(64, result);
    shift += 7n;
  }
}

/** ProtoReader.small: a varint as a number (exact below 2^53). */
function small(end: number): number {
  let result = 0;
  let scale = 1;
  const start = pos;
  for (let i = 0; i < 8; i++) {
    if (pos >= end) throw fail("an invalid varint in a nested value");
    const b = src[pos++]!;
    result += (b & 0x7f) * scale;
    if ((b & 0x80) === 0) return result;
    scale *= 128;
  }
  pos = start;
  return Number(bigVarint(end));
}

function skipVarint(end: number): void {
  for (let shift = 0; ; shift += 7) {
    if (pos >= end || shift > 63) throw fail("an invalid varint in a nested value");
    if ((src[pos++]! & 0x80) === 0) return;
  }
}

/** A length-delimited field's content: returns its start, leaves `pos` at its end. */
function lengthDelimited(end: number): number {
  const length = small(end);
  if (length > end - pos) throw fail("a nested length exceeds its message");
  const start = pos;
  pos += length;
  return start;
}

function tag(end: number): void {
  const t = small(end);
  if (t >>> 3 === 0) throw fail("a nested field number 0");
  field = t >>> 3;
  wire = t & 7;
}

function skipFixed(size: 8 | 4, end: number): void {
  if (pos + size > end) throw fail(`a truncated fixed${size * 8} in a nested value`);
  pos += size;
}

function skip(end: number): void {
  if (wire === 0) skipVarint(end);
  else if (wire === 1) skipFixed(8, end);
  else if (wire === 5) skipFixed(4, end);
  else if (wire === 2) lengthDelimited(end);
  else throw fail(`a nested wire type ${wire}`);
}

/** One KeyValue message's content → `["key","type",value]`. */
export function writeKeyValueAt(out: ByteBuf, bytes: Uint8Array, start: number, end: number): void {
  src = bytes;
  writeKeyValue(out, start, end);
}

function writeKeyValue(out: ByteBuf, start: number, end: number): void {
  let keyStart = -1;
  let keyEnd = -1;
  let valueStart = -1;
  let valueEnd = -1;
  pos = start;
  while (pos < end) {
    tag(end);
    if (field === 1 && wire === 2) {
      keyStart = lengthDelimited(end);
      keyEnd = pos;
    } else if (field === 2 && wire === 2) {
      const s = lengthDelimited(end);
      const e = pos;
      // A value that a later one replaces is still decoded, for the errors it may raise.
      if (valueStart >= 0) discard(out, () => writeAnyValue(out, valueStart, valueEnd));
      pos = e;
      valueStart = s;
      valueEnd = e;
    } else skip(end);
  }
  out.byte(0x5b); // [
  if (keyStart < 0) out.ascii('""');
  else out.jsonString(src, keyStart, keyEnd);
  out.byte(0x2c); // ,
  if (valueStart < 0) out.raw(EMPTY);
  else writeAnyValue(out, valueStart, valueEnd);
  out.byte(0x5d); // ]
}

function discard(out: ByteBuf, write: () => void): void {
  const mark = out.used;
  write();
  out.used = mark;
}

/** An AnyValue message's content → `"type",value` (the last recognised field wins). */
function writeAnyValue(out: ByteBuf, start: number, end: number): void {
  let last = 0;
  let lastStart = 0;
  let lastEnd = 0;
  pos = start;
  while (pos < end) {
    tag(end);
    let s: number;
    if (wire === 2 && (field === 1 || field === 5 || field === 6 || field === 7))
      s = lengthDelimited(end);
    else if (wire === 0 && (field === 2 || field === 3)) {
      s = pos;
      skipVarint(end);
    } else if (wire === 1 && field === 4) {
      s = pos;
      skipFixed(8, end);
    } else {
      skip(end);
      continue;
    }
    const e = pos;
    if (last === 5 || last === 6) discard(out, () => writeValue(out, last, lastStart, lastEnd));
    pos = e;
    last = field;
    lastStart = s;
    lastEnd = e;
  }
  if (last === 0) out.raw(EMPTY);
  else writeValue(out, last, lastStart, lastEnd);
}

function writeValue(out: ByteBuf, which: number, s: number, e: number): void {
  switch (which) {
    case 1:
      out.raw(STRING);
      out.jsonString(src, s, e);
      return;
    case 2: {
      // varint() !== 0n over the 64 low bits: the 10th byte contributes only its lowest bit.
      let set = false;
      for (let i = s; i < e; i++) if ((src[i]! & (i - s === 9 ? 1 : 0x7f)) !== 0) set = true;
      out.raw(set ? TRUE : FALSE);
      return;
    }
    case 3: {
      let text: string;
      if (e - s <= 7) {
        let n = 0;
        let scale = 1;
        for (let i = s; i < e; i++, scale *= 128) n += (src[i]! & 0x7f) * scale;
        text = String(n);
      } else {
        pos = s;
        text = BigInt.asIntN(64, bigVarint(e)).toString();
      }
      out.raw(INT);
      out.ascii(text);
      out.byte(0x22);
      return;
    }
    case 4: {
      for (let i = 0; i < 8; i++) floatBytes[i] = src[s + i]!;
      const n = float[0]!;
      out.raw(DOUBLE);
      out.ascii(Number.isFinite(n) ? String(n) : `"${String(n)}"`);
      return;
    }
    case 5:
    case 6: {
      out.raw(which === 5 ? ARRAY : KVLIST);
      let first = true;
      pos = s;
      while (pos < e) {
        tag(e);
        if (field === 1 && wire === 2) {
          const cs = lengthDelimited(e);
          const ce = pos;
          if (!first) out.byte(0x2c);
          first = false;
          if (which === 5) {
            out.byte(0x5b);
            writeAnyValue(out, cs, ce);
            out.byte(0x5d);
          } else writeKeyValue(out, cs, ce);
          pos = ce;
        } else skip(e);
      }
      out.byte(0x5d);
      return;
    }
    case 7:
      out.raw(BYTES);
      out.ascii(Buffer.from(src.buffer, src.byteOffset + s, e - s).toString("base64"));
      out.byte(0x22);
      return;
  }
}
