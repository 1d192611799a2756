/**
 * The args JSON of a track event's debug annotations written as UTF-8 bytes straight from
 * their protobuf, for the common shapes: flat annotations (bool, integer, double, string,
 * interned string or pointer values) under distinct names. It is byte for byte the text
 * `annotationsJson` (debug-annotations.ts) makes through an object and JSON.stringify, which
 * stays the reference and the path for everything else: nested dicts and arrays, legacy JSON
 * values, names an object would reorder or drop (array indices, `__proto__`) or repeat, and
 * malformed bytes (whose error is the reference's to raise). On a generated 40 MB trace with an
 * annotation on every fifth event, args cost the parser 440 ms of its 2.8 s, and this path took
 * its CPU from 2.84 to 2.73 s.
 */
import type { ByteBuf } from "../common/json-bytes.ts";
import type { SequenceState } from "./sequence-state.ts";

const utf8 = new TextDecoder();
const encoder = new TextEncoder();

/** What one annotation's last value field was. */
enum Value {
  None,
  Bool,
  Unsigned,
  Signed,
  Double,
  Text,
  Interned,
  Pointer,
}

/** JSON.stringify of names (with their colon), by name: each is encoded once. */
const nameJson = new Map<string, Uint8Array>();
const NAME_CACHE_ENTRIES = 4096;
const view = new DataView(new ArrayBuffer(8));

/**
 * Parses one annotation; the fields of the last value, and its name. Not through ProtoReader: that
 * one throws on malformed bytes and reads 64-bit varints as bigints, where this path only needs to
 * say it cannot (the reference then reads the bytes and raises) and keeps 32-bit halves.
 */
class AnnotationFields {
  bytes: Uint8Array = new Uint8Array(0);
  pos = 0;
  name: string | null = null;
  value = Value.None;
  /** Bool, integer or pointer bits (low and high 32), or an interned string's iid. */
  low = 0;
  high = 0;
  /** The string value's bytes. */
  textStart = 0;
  textEnd = 0;
  /** The last length-delimited field's bytes. */
  private start = 0;
  private end = 0;

  /** False where the reference must take over (see the module's comment). */
  read(bytes: Uint8Array, state: SequenceState): boolean {
    this.bytes = bytes;
    this.pos = 0;
    this.name = "";
    this.value = Value.None;
    while (this.pos < bytes.length) {
      const tag = this.varint32();
      if (tag < 0) return false;
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 0) return false;
      if (field === 1 && wire === 0) {
        const iid = this.varint32();
        if (iid < 0) return false;
        this.name = state.annotationNames.get(iid) ?? "";
      } else if (field === 10 && wire === 2) {
        if (!this.delimited()) return false;
        this.name = utf8.decode(bytes.subarray(this.start, this.end));
      } else if (wire === 0 && (field === 2 || field === 3 || field === 4 || field === 7)) {
        if (!this.varint64()) return false;
        this.low = this.varintLow;
        this.high = this.varintHigh;
        this.value =
          field === 2
            ? Value.Bool
            : field === 3
              ? Value.Unsigned
              : field === 4
                ? Value.Signed
                : Value.Pointer;
      } else if (field === 5 && wire === 1) {
        if (this.pos + 8 > bytes.length) return false;
        view.setUint32(0, this.u32(this.pos), true);
        view.setUint32(4, this.u32(this.pos + 4), true);
        this.pos += 8;
        this.value = Value.Double;
      } else if (field === 6 && wire === 2) {
        if (!this.delimited()) return false;
        this.textStart = this.start;
        this.textEnd = this.end;
        this.value = Value.Text;
      } else if (field === 17 && wire === 0) {
        const iid = this.varint32();
        if (iid < 0) return false;
        this.low = iid;
        this.value = Value.Interned;
      } else if (field === 9 || field === 11 || field === 12) return false;
      else if (!this.skip(wire)) return false;
    }
    return true;
  }

  private u32(at: number): number {
    const b = this.bytes;
    return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
  }

  /** A varint below 2^31, or -1 (longer, malformed or cut). */
  private varint32(): number {
    const b = this.bytes;
    let result = 0;
    for (let shift = 0; shift < 31; shift += 7) {
      if (this.pos >= b.length) return -1;
      const byte = b[this.pos++]!;
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result < 0 ? -1 : result;
    }
    return -1;
  }

  /** The last 64-bit varint read, its low and high 32 bits. */
  private varintLow = 0;
  private varintHigh = 0;

  /** A 64-bit varint into varintLow and varintHigh; false when malformed or cut. */
  private varint64(): boolean {
    const b = this.bytes;
    let low = 0;
    let high = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= b.length) return false;
      const byte = b[this.pos++]! & 0xff;
      const bits = byte & 0x7f;
      if (i < 4) low |= bits << (7 * i);
      else if (i === 4) {
        low |= (bits & 0x0f) << 28;
        high |= bits >>> 4;
      } else high |= bits << (7 * i - 32);
      if ((byte & 0x80) === 0) {
        this.varintLow = low >>> 0;
        this.varintHigh = high >>> 0;
        return true;
      }
    }
    return false;
  }

  private delimited(): boolean {
    const length = this.varint32();
    if (length < 0 || this.pos + length > this.bytes.length) return false;
    this.start = this.pos;
    this.end = this.pos + length;
    this.pos = this.end;
    return true;
  }

  private skip(wire: number): boolean {
    if (wire === 0) return this.varint64();
    if (wire === 1 || wire === 5) {
      this.pos += wire === 1 ? 8 : 4;
      return this.pos <= this.bytes.length;
    }
    if (wire === 2) return this.delimited();
    return false;
  }
}

const fields = new AnnotationFields();
const names: string[] = [];

/**
 * Appends the annotations' args JSON to `out`; false, with `out.used` as it was, where the
 * reference path must write it. `annotations` is not empty.
 */
export function writeAnnotationsJson(
  annotations: readonly Uint8Array[],
  state: SequenceState,
  out: ByteBuf,
): boolean {
  const mark = out.used;
  names.length = 0;
  out.byte(0x7b);
  for (const bytes of annotations) {
    if (!fields.read(bytes, state) || !plainName(fields.name!)) {
      out.used = mark;
      return false;
    }
    writeValue(fields, state, out, mark);
  }
  out.byte(0x7d);
  return true;
}

/**
 * A name an object keeps where it was put and JSON.stringify writes as it is: not an array
 * index (those come first), not `__proto__` (a setter), and not one of this event's names
 * already (the last value would take the first one's place).
 */
function plainName(name: string): boolean {
  if (name === "__proto__") return false;
  const c = name.charCodeAt(0);
  if (c >= 0x30 && c <= 0x39 && isArrayIndex(name)) return false;
  for (const seen of names) if (seen === name) return false;
  names.push(name);
  return true;
}

function isArrayIndex(name: string): boolean {
  if (!/^(?:0|[1-9][0-9]*)$/.test(name)) return false;
  return Number(name) < 2 ** 32 - 1;
}

function writeValue(f: AnnotationFields, state: SequenceState, out: ByteBuf, mark: number): void {
  if (out.used > mark + 1) out.byte(0x2c);
  out.raw(nameBytes(f.name!));
  switch (f.value) {
    case Value.None:
      out.ascii("null");
      return;
    case Value.Bool:
      out.ascii(f.low !== 0 || f.high !== 0 ? "true" : "false");
      return;
    case Value.Unsigned:
    case Value.Signed:
      writeInteger(f.low, f.high, f.value === Value.Signed, out);
      return;
    case Value.Double: {
      const n = view.getFloat64(0, true);
      out.ascii(Number.isFinite(n) ? String(n) : "null");
      return;
    }
    case Value.Text:
      out.jsonString(f.bytes, f.textStart, f.textEnd);
      return;
    case Value.Interned: {
      const text = state.stringValues.get(f.low);
      if (text === undefined) out.ascii("null");
      else out.raw(encoder.encode(JSON.stringify(text)));
      return;
    }
    case Value.Pointer: {
      const v = (BigInt(f.high) << 32n) | BigInt(f.low);
      out.ascii(`"0x${v.toString(16)}"`);
      return;
    }
  }
}

/**
 * As debug-annotations.ts `integer` gives it: a number while exact (±2^53), else its decimal as a
 * JSON string.
 */
function writeInteger(low: number, high: number, signed: boolean, out: ByteBuf): void {
  if (high < 0x200000) {
    // Below 2^53, non-negative either way.
    out.ascii(String(high * 2 ** 32 + low));
    return;
  }
  let v = (BigInt(high) << 32n) | BigInt(low);
  if (signed) v = BigInt.asIntN(64, v);
  const safe = v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER);
  out.ascii(safe ? String(Number(v)) : `"${v.toString()}"`);
}

function nameBytes(name: string): Uint8Array {
  let bytes = nameJson.get(name);
  if (bytes === undefined) {
    if (nameJson.size >= NAME_CACHE_ENTRIES) nameJson.clear();
    bytes = encoder.encode(`${JSON.stringify(name)}:`);
    nameJson.set(name, bytes);
  }
  return bytes;
}
