/**
 * The args JSON of a track event's debug annotations written as UTF-8 bytes straight from
 * their protobuf: flat annotations (bool, integer, double, string, interned string or pointer
 * values) and nested dicts and arrays of them, under distinct names. It is byte for byte the
 * text `annotationsJson` (debug-annotations.ts) makes through objects and JSON.stringify, which
 * stays the reference and the path for everything else: legacy JSON values, names an object
 * would reorder or drop (array indices, `__proto__`) or repeat, and malformed bytes (whose
 * error is the reference's to raise). On a generated 40 MB trace with an annotation on every
 * fifth event, args cost the parser 440 ms of its 2.8 s, and this path took its CPU from 2.84 to
 * 2.73 s. Chrome nests most of its annotations (a `data` dict): on its startup trace, repeated to
 * 40 MB, the reference path for them was ~8% of the parser thread.
 */
import type { ByteBuf } from "../common/json-bytes.ts";
import type { PacketAnnotations } from "./packet-annotations.ts";
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
/** Nesting the reference reads dicts and arrays to (debug-annotations.ts MAX_NESTING). */
const MAX_NESTING = 32;

/**
 * Parses one annotation: the fields of its last value, its name, and where its dict entries or
 * array values are. Not through ProtoReader: that one throws on malformed bytes and reads 64-bit
 * varints as bigints, where this path only needs to say it cannot (the reference then reads the
 * bytes and raises) and keeps 32-bit halves.
 */
class AnnotationFields {
  bytes: Uint8Array = new Uint8Array(0);
  pos = 0;
  /** Where this annotation's bytes end in `bytes`. */
  private limit = 0;
  name: string | null = null;
  value = Value.None;
  /** Bool, integer or pointer bits (low and high 32), or an interned string's iid. */
  low = 0;
  high = 0;
  /** The string value's bytes. */
  textStart = 0;
  textEnd = 0;
  /** The double value (a fixed64). */
  double = 0;
  /** Dict entries (field 11) or array values (12), as start and end pairs in `bytes`. */
  readonly entries: number[] = [];
  readonly items: number[] = [];
  /** The last length-delimited field's bytes. */
  private start = 0;
  private end = 0;
  private readonly view = new DataView(new ArrayBuffer(8));

  /**
   * Reads the annotation in `bytes` from `start` to `end`, nested `depth` deep; false where the
   * reference must take over (see the module's comment).
   */
  read(
    bytes: Uint8Array,
    start: number,
    end: number,
    state: SequenceState,
    depth: number,
  ): boolean {
    this.bytes = bytes;
    this.pos = start;
    this.limit = end;
    this.name = "";
    this.value = Value.None;
    this.entries.length = 0;
    this.items.length = 0;
    while (this.pos < end) {
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
        if (this.pos + 8 > end) return false;
        this.view.setUint32(0, this.u32(this.pos), true);
        this.view.setUint32(4, this.u32(this.pos + 4), true);
        this.double = this.view.getFloat64(0, true);
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
      } else if ((field === 11 || field === 12) && wire === 2 && depth < MAX_NESTING) {
        if (!this.delimited()) return false;
        (field === 11 ? this.entries : this.items).push(this.start, this.end);
      } else if (field === 9) return false;
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
      if (this.pos >= this.limit) return -1;
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
      if (this.pos >= this.limit) return false;
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
    if (length < 0 || this.pos + length > this.limit) return false;
    this.start = this.pos;
    this.end = this.pos + length;
    this.pos = this.end;
    return true;
  }

  private skip(wire: number): boolean {
    if (wire === 0) return this.varint64();
    if (wire === 1 || wire === 5) {
      this.pos += wire === 1 ? 8 : 4;
      return this.pos <= this.limit;
    }
    if (wire === 2) return this.delimited();
    return false;
  }
}

/** A reader per nesting depth (a dict entry is read while its dict's own reader is in use). */
const readers: AnnotationFields[] = [];
/** Per nesting depth, the names of the object being written (see plainName). */
const namesAt: string[][] = [];

function readerAt(depth: number): AnnotationFields {
  return (readers[depth] ??= new AnnotationFields());
}

/**
 * Appends the annotations' args JSON to `out`; false, with `out.used` as it was, where the
 * reference path must write it. `annotations` is not empty.
 */
export function writeAnnotationsJson(
  annotations: PacketAnnotations,
  state: SequenceState,
  out: ByteBuf,
): boolean {
  const mark = out.used;
  const names = (namesAt[0] ??= []);
  names.length = 0;
  out.byte(0x7b);
  const f = readerAt(0);
  const { bytes, ranges } = annotations;
  for (let k = 0; k < ranges.length; k += 2) {
    if (!f.read(bytes, ranges[k]!, ranges[k + 1]!, state, 0) || !plainName(f.name!, names)) {
      out.used = mark;
      return false;
    }
    if (k > 0) out.byte(0x2c);
    out.raw(nameBytes(f.name!));
    if (!writeValue(f, state, out, 0)) {
      out.used = mark;
      return false;
    }
  }
  out.byte(0x7d);
  return true;
}

/**
 * A name an object keeps where it was put and JSON.stringify writes as it is: not an array
 * index (those come first), not `__proto__` (a setter), and not one of the object's `names`
 * already (the last value would take the first one's place).
 */
function plainName(name: string, names: string[]): boolean {
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

/**
 * The value of the annotation `f` has read, `depth` deep: its dict if it has entries, else its
 * array if it has values, else its last value (the reference's `dict ?? array ?? value`).
 */
function writeValue(
  f: AnnotationFields,
  state: SequenceState,
  out: ByteBuf,
  depth: number,
): boolean {
  if (f.entries.length > 0) {
    // The reference reads array values beside a dict too (and fails on malformed ones).
    if (f.items.length > 0 && !readable(f, f.items, state, depth)) return false;
    return writeNested(f, f.entries, true, state, out, depth);
  }
  if (f.items.length > 0) return writeNested(f, f.items, false, state, out, depth);
  switch (f.value) {
    case Value.None:
      out.ascii("null");
      return true;
    case Value.Bool:
      out.ascii(f.low !== 0 || f.high !== 0 ? "true" : "false");
      return true;
    case Value.Unsigned:
    case Value.Signed:
      writeInteger(f.low, f.high, f.value === Value.Signed, out);
      return true;
    case Value.Double:
      out.ascii(Number.isFinite(f.double) ? String(f.double) : "null");
      return true;
    case Value.Text:
      out.jsonString(f.bytes, f.textStart, f.textEnd);
      return true;
    case Value.Interned: {
      const text = state.stringValues.get(f.low);
      if (text === undefined) out.ascii("null");
      else out.raw(encoder.encode(JSON.stringify(text)));
      return true;
    }
    case Value.Pointer: {
      const v = (BigInt(f.high) << 32n) | BigInt(f.low);
      out.ascii(`"0x${v.toString(16)}"`);
      return true;
    }
  }
}

/** Whether the annotations at `ranges` of `f`, and all nested in them, read without failing. */
function readable(
  f: AnnotationFields,
  ranges: readonly number[],
  state: SequenceState,
  depth: number,
): boolean {
  const child = readerAt(depth + 1);
  for (let k = 0; k < ranges.length; k += 2) {
    if (!child.read(f.bytes, ranges[k]!, ranges[k + 1]!, state, depth + 1)) return false;
    if (child.entries.length > 0 && !readable(child, child.entries, state, depth + 1)) return false;
    if (child.items.length > 0 && !readable(child, child.items, state, depth + 1)) return false;
  }
  return true;
}

/** A dict's entries (`dict`: as an object of their names) or an array's values. */
function writeNested(
  f: AnnotationFields,
  ranges: readonly number[],
  dict: boolean,
  state: SequenceState,
  out: ByteBuf,
  depth: number,
): boolean {
  const child = readerAt(depth + 1);
  const names = (namesAt[depth + 1] ??= []);
  names.length = 0;
  out.byte(dict ? 0x7b : 0x5b);
  for (let k = 0; k < ranges.length; k += 2) {
    if (!child.read(f.bytes, ranges[k]!, ranges[k + 1]!, state, depth + 1)) return false;
    if (k > 0) out.byte(0x2c);
    if (dict) {
      if (!plainName(child.name!, names)) return false;
      out.raw(nameBytes(child.name!));
    }
    if (!writeValue(child, state, out, depth + 1)) return false;
  }
  out.byte(dict ? 0x7d : 0x5d);
  return true;
}

/**
 * As debug-annotations.ts `integer` gives it: a number while exact (±2^53), else its decimal as a
 * JSON string.
 */
function writeInteger(low: number, high: number, signed: boolean, out: ByteBuf): void {
  if (high < 0x200000) {
    // Below 2^53, non-negative either way.
    out.safeInteger(high * 2 ** 32 + low);
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
