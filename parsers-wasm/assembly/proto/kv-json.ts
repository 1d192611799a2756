/**
 * An OTLP KeyValue message → its canonical attribute JSON, `["key","type",value]`, written
 * in the module (the host calls it for each KeyValue of a batch) for the common case: keys
 * and strings of well-formed UTF-8, bool, int, double, array and kvlist values, each AnyValue
 * with one field. Anything else (text that is not well-formed UTF-8 or starts with a BOM,
 * bytes, a repeated value, an unknown field, malformed or deeply nested data, JSON past the
 * scratch) gives -1, and the host writes the JSON from the raw bytes instead
 * (src/adapters/otlp/proto-attributes-json.ts), with all of its rules and errors. Both write
 * the same bytes where this one answers: tests/adapters/otlp-proto-stream.test.ts compares them.
 */
import { region } from "../common/regions";
import { outPtr, outRecords, outStride, textPtr } from "../json/records";
import { TAG_BYTES } from "./scanner";
import { SHORTEST_DOUBLE_BYTES, writeShortestDouble } from "./shortest-double";

let out: usize = 0;
let outEnd: usize = 0;
/** The end of kvJson's scratch (outEnd is the end of the scratch being written). */
let outLimit: usize = 0;
/** Write position in the scratch. */
let o: usize = 0;
/** Read position in the KeyValue bytes. */
let at: usize = 0;
let ok: bool = true;
/** Set when the JSON ran past the scratch (the other failures are the input's). */
let full: bool = false;
/** The batch scratch (kvJsonBatch) and, per record of a batch, its JSON's start and length. */
let batchOut: usize = 0;
let batchEnd: usize = 0;
let batchStarts: usize = 0;
let batchLengths: usize = 0;
let field: u32 = 0;
let wire: u32 = 0;

const MAX_DEPTH: i32 = 16;

/**
 * Writes a double as the host's JSON writer does (`String(n)`, quoted when not finite) at `at`;
 * its length, or -1 past `room`: for the doubles whose shortest digits writeShortestDouble
 * cannot prove (shortest-double.ts), and NaN and the infinities.
 */
@external("env", "formatDouble")
declare function formatDouble(value: f64, at: usize, room: usize): i32;

export function kvJsonInit(scratchBytes: usize, batchBytes: usize, maxRecords: i32): bool {
  out = region(scratchBytes);
  outLimit = out + scratchBytes;
  batchOut = region(batchBytes);
  batchEnd = batchOut + batchBytes;
  batchStarts = region(<usize>maxRecords << 2);
  batchLengths = region(<usize>maxRecords << 2);
  return out != 0 && batchOut != 0 && batchStarts != 0 && batchLengths != 0;
}

export function kvJsonPtr(): usize { return out; }

/** The JSON of the KeyValue in [src, src+len) at kvJsonPtr(); its length, or -1. */
export function kvJson(src: usize, len: usize): i32 {
  o = out;
  outEnd = outLimit;
  ok = true;
  writeKeyValue(src, src + len, 0);
  return ok ? <i32>(o - out) : -1;
}

export function kvJsonBatchPtr(): usize { return batchOut; }
export function kvJsonStartsPtr(): usize { return batchStarts; }
export function kvJsonLengthsPtr(): usize { return batchLengths; }

/**
 * The JSON of every KeyValue of the batch (records of type `kvType`, not announced, the message
 * in bytes slot `slot`), one after another in the batch scratch: record r's starts at
 * kvJsonBatchPtr() + starts[r], `lengths[r]` long; -1 where the host writes it (as kvJson), -2
 * where the scratch ran out (the host asks kvJson for it alone). Other records' entries are left
 * as they were. One call per batch instead of one per attribute: the calls into the module
 * were ~5% of an OTLP import.
 */
export function kvJsonBatch(kvType: i32, slot: i32): void {
  const count = outRecords();
  const stride = <usize>outStride();
  const text = textPtr();
  let record = outPtr();
  o = batchOut;
  outEnd = batchEnd;
  for (let r = 0; r < count; r++, record += stride) {
    const header = load<i32>(record);
    if ((header & 0xffff) != kvType || ((header >> 17) & 1) != 0) continue;
    const at = record + 16 + (<usize>slot << 4);
    const entry = <usize>r << 2;
    if ((load<i32>(at) & 15) != TAG_BYTES) {
      store<i32>(batchLengths + entry, -1);
      continue;
    }
    const src = text + <usize>load<f64>(at + 8);
    const start = o;
    ok = true;
    full = false;
    writeKeyValue(src, src + <usize>load<i32>(at + 4), 0);
    if (ok) {
      store<i32>(batchStarts + entry, <i32>(start - batchOut));
      store<i32>(batchLengths + entry, <i32>(o - start));
    } else {
      o = start;
      store<i32>(batchLengths + entry, full ? -2 : -1);
    }
  }
}

function varint(end: usize): u64 {
  let result: u64 = 0;
  for (let shift: u64 = 0; shift < 64; shift += 7) {
    if (at >= end) break;
    const b = <u64>load<u8>(at++);
    result |= (b & 0x7f) << shift;
    if ((b & 0x80) == 0) return result;
  }
  ok = false;
  return 0;
}

/** The next tag into `field` and `wire`; false at a field the host must judge. */
function tag(end: usize): bool {
  const t = varint(end);
  if (!ok || t > 0xffffffff || (t >> 3) == 0) return (ok = false);
  field = <u32>(t >> 3);
  wire = <u32>(t & 7);
  return true;
}

/** A length-delimited field's content: its start; `at` is left at its end. */
function lengthDelimited(end: usize): usize {
  const length = varint(end);
  if (!ok || length > <u64>(end - at)) {
    ok = false;
    return 0;
  }
  const start = at;
  at += <usize>length;
  return start;
}

@inline function room(n: usize): bool {
  if (o + n <= outEnd) return true;
  full = true;
  return (ok = false);
}

@inline function put(b: i32): void {
  if (room(1)) store<u8>(o++, <u8>b);
}

/** ASCII bytes of a constant (the type names). */
function putText(text: string): void {
  const n = text.length;
  if (!room(<usize>n)) return;
  for (let i = 0; i < n; i++) store<u8>(o + <usize>i, <u8>text.charCodeAt(i));
  o += <usize>n;
}

const HEX: string = "0123456789abcdef";

/** [s, e) as a JSON string literal, byte for byte JSON.stringify's; ASCII only. */
function jsonString(s: usize, e: usize): void {
  if (!room(2 + 6 * (e - s))) return;
  // A leading BOM is dropped by the host's TextDecoder: its writer's case.
  if (e - s >= 3 && load<u8>(s) == 0xef && load<u8>(s + 1) == 0xbb && load<u8>(s + 2) == 0xbf) {
    ok = false;
    return;
  }
  store<u8>(o++, 0x22);
  for (let p = s; p < e; p++) {
    const c = <i32>load<u8>(p);
    if (c >= 0x80) {
      // Well-formed UTF-8 decodes and encodes back to itself, and JSON.stringify leaves
      // non-ASCII as it is; anything else becomes U+FFFD in the host's decoder: its writer's case.
      const n = sequenceLength(p, e);
      if (n == 0) {
        ok = false;
        return;
      }
      for (let k: usize = 0; k < n; k++) store<u8>(o++, load<u8>(p + k));
      p += n - 1;
      continue;
    }
    if (c >= 0x20 && c != 0x22 && c != 0x5c) {
      store<u8>(o++, <u8>c);
      continue;
    }
    store<u8>(o++, 0x5c);
    if (c == 0x22 || c == 0x5c) store<u8>(o++, <u8>c);
    else if (c == 0x08) store<u8>(o++, 0x62);
    else if (c == 0x09) store<u8>(o++, 0x74);
    else if (c == 0x0a) store<u8>(o++, 0x6e);
    else if (c == 0x0c) store<u8>(o++, 0x66);
    else if (c == 0x0d) store<u8>(o++, 0x72);
    else {
      store<u8>(o++, 0x75);
      store<u8>(o++, 0x30);
      store<u8>(o++, 0x30);
      store<u8>(o++, <u8>HEX.charCodeAt(c >> 4));
      store<u8>(o++, <u8>HEX.charCodeAt(c & 15));
    }
  }
  store<u8>(o++, 0x22);
}

/**
 * Bytes of the well-formed UTF-8 sequence at p (lead byte >= 0x80), or 0 when it is not one
 * (Unicode's table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF).
 */
function sequenceLength(p: usize, e: usize): usize {
  const c = <u32>load<u8>(p);
  let n: usize;
  let lo: u32 = 0x80;
  let hi: u32 = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    else if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    else if (c == 0xf4) hi = 0x8f;
  } else return 0;
  if (e - p < n) return 0;
  const second = <u32>load<u8>(p + 1);
  if (second < lo || second > hi) return 0;
  for (let k: usize = 2; k < n; k++) {
    const b = <u32>load<u8>(p + k);
    if (b < 0x80 || b > 0xbf) return 0;
  }
  return n;
}

/** The 64 low bits as a signed decimal, as BigInt.asIntN(64, …).toString() writes it. */
function putInt64(bits: u64): void {
  if (!room(20)) return;
  let v = bits;
  if (<i64>bits < 0) {
    store<u8>(o++, 0x2d);
    v = 0 - bits;
  }
  let digits = 1;
  for (let t = v; t >= 10; t /= 10) digits++;
  for (let i = digits - 1; i >= 0; i--) {
    store<u8>(o + <usize>i, <u8>(0x30 + <i32>(v % 10)));
    v /= 10;
  }
  o += <usize>digits;
}

function writeKeyValue(start: usize, end: usize, depth: i32): void {
  let keyStart: usize = 0;
  let keyEnd: usize = 0;
  let hasKey = false;
  let valueStart: usize = 0;
  let valueEnd: usize = 0;
  let hasValue = false;
  at = start;
  while (at < end) {
    if (!tag(end) || wire != 2 || (field != 1 && field != 2)) {
      ok = false;
      return;
    }
    const s = lengthDelimited(end);
    if (!ok) return;
    if (field == 1) {
      keyStart = s;
      keyEnd = at;
      hasKey = true;
    } else {
      // A replaced value is still decoded by the host, for the errors it may raise.
      if (hasValue) {
        ok = false;
        return;
      }
      valueStart = s;
      valueEnd = at;
      hasValue = true;
    }
  }
  put(0x5b);
  if (hasKey) jsonString(keyStart, keyEnd);
  else putText('""');
  put(0x2c);
  if (hasValue) writeAnyValue(valueStart, valueEnd, depth);
  else putText('"empty",null');
  put(0x5d);
}

function writeAnyValue(start: usize, end: usize, depth: i32): void {
  if (depth >= MAX_DEPTH) {
    ok = false;
    return;
  }
  let which: u32 = 0;
  let s: usize = 0;
  let e: usize = 0;
  at = start;
  while (at < end) {
    if (!tag(end) || which != 0) {
      ok = false;
      return;
    }
    if (wire == 2 && (field == 1 || field == 5 || field == 6)) s = lengthDelimited(end);
    else if (wire == 0 && (field == 2 || field == 3)) {
      s = at;
      varint(end);
    } else if (wire == 1 && field == 4) {
      s = at;
      if (end - at < 8) ok = false;
      else at += 8;
    } else ok = false; // bytes and unknown fields: the host's
    if (!ok) return;
    e = at;
    which = field;
  }
  if (which == 0) {
    putText('"empty",null');
    return;
  }
  if (which == 1) {
    putText('"string",');
    jsonString(s, e);
  } else if (which == 2) {
    // Any of the 64 low bits set: the 10th byte holds only the lowest.
    let set = false;
    for (let p = s; p < e; p++) if ((load<u8>(p) & (p - s == 9 ? 1 : 0x7f)) != 0) set = true;
    putText(set ? '"bool",true' : '"bool",false');
  } else if (which == 3) {
    at = s;
    const bits = varint(e);
    putText('"int","');
    putInt64(bits);
    put(0x22);
  } else if (which == 4) {
    putText('"double",');
    if (!ok) return;
    const value = load<f64>(s);
    if (!room(SHORTEST_DOUBLE_BYTES)) return;
    const shortest = writeShortestDouble(value, o);
    if (shortest >= 0) {
      o += <usize>shortest;
      return;
    }
    const n = formatDouble(value, o, outEnd - o);
    if (n < 0) ok = false;
    else o += <usize>n;
  } else {
    putText(which == 5 ? '"array",[' : '"kvlist",[');
    let first = true;
    at = s;
    while (at < e && ok) {
      if (!tag(e) || field != 1 || wire != 2) {
        ok = false;
        return;
      }
      const cs = lengthDelimited(e);
      if (!ok) return;
      const ce = at;
      if (!first) put(0x2c);
      first = false;
      if (which == 5) {
        put(0x5b);
        writeAnyValue(cs, ce, depth + 1);
        put(0x5d);
      } else writeKeyValue(cs, ce, depth + 1);
      at = ce;
    }
    put(0x5d);
  }
}
