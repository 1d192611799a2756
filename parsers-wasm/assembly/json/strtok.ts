/**
 * String tokens, resumable at any byte (a string may span input chunks). The decoded
 * bytes go to a scratch buffer when the caller wants them (keys, interned values); the
 * canonical escaped form goes to the capture buffer while a JSON value is captured.
 * Raw non-ASCII bytes are validated like a replacing UTF-8 decoder (WHATWG): invalid
 * sequences become U+FFFD in captured text, as they would after TextDecoder + JSON.parse.
 */
import { region } from "../common/regions";
import { KIND_UTF8, KIND_WTF8 } from "../common/dict";
import { capByte, capRun, capCodePoint, capReplacement, capturing } from "./capture";

export const STR_OK: i32 = 0;
export const STR_ERR_CONTROL: i32 = 4;
export const STR_ERR_ESCAPE: i32 = 5;

let scratch: usize = 0;
let scratchCap: usize = 0;
let scratchLen: usize = 0;
let scratchOverflow: bool = false;
let kind: i32 = KIND_UTF8;
let want: bool = false;
let cap: bool = false;
let done: bool = false;
let error: i32 = STR_OK;

let esc: i32 = 0; // 0 none, 1 after backslash, 2..5 reading the 4 hex digits of \u
let hex: i32 = 0;
let pendingHigh: i32 = -1;
// Replacing UTF-8 decoder state (capture only).
let need: i32 = 0;
let seen: i32 = 0;
let lower: i32 = 0x80;
let upper: i32 = 0xbf;
let pend: u32 = 0;

export function stringInit(bytes: usize): bool {
  scratch = region(bytes);
  scratchCap = bytes;
  return scratch != 0;
}

export function stringBegin(wantBytes: bool): void {
  want = wantBytes;
  cap = capturing();
  scratchLen = 0;
  scratchOverflow = false;
  kind = KIND_UTF8;
  done = false;
  error = STR_OK;
  esc = 0;
  pendingHigh = -1;
  need = 0;
  seen = 0;
  lower = 0x80;
  upper = 0xbf;
  if (cap) capByte(0x22);
}

/** The longest decoded string the scratch holds (longer ones overflow). */
export function stringCapacity(): usize { return scratchCap; }

/**
 * First byte in [q, end) that ends a run of plain string bytes: a quote, a backslash, a control
 * character, and with `stopHigh` any byte >= 0x80 (which the capture must validate as
 * UTF-8); `end` when none. Sixteen bytes at a time while a whole vector fits before `end`.
 */
@inline export function scanPlain(q: usize, end: usize, stopHigh: bool): usize {
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  const space = i8x16.splat(0x20);
  while (q + 16 <= end) {
    const v = v128.load(q);
    // Signed < 0x20 also catches bytes >= 0x80 (negative as i8).
    const low = stopHigh ? i8x16.lt_s(v, space) : i8x16.lt_u(v, space);
    const bits = i8x16.bitmask(v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), low));
    if (bits != 0) return q + <usize>ctz(bits);
    q += 16;
  }
  while (q < end) {
    const c = <u32>load<u8>(q);
    if (c < 0x20 || c == 0x22 || c == 0x5c || (stopHigh && c >= 0x80)) return q;
    q++;
  }
  return end;
}

export function stringDone(): bool { return done; }
export function stringError(): i32 { return error; }
export function stringPtr(): usize { return scratch; }
export function stringLen(): i32 { return <i32>scratchLen; }
export function stringKind(): i32 { return kind; }
export function stringOverflowed(): bool { return scratchOverflow; }

@inline function keepByte(b: i32): void {
  if (scratchLen < scratchCap) store<u8>(scratch + scratchLen++, <u8>b);
  else scratchOverflow = true;
}

@inline function keepBytes(ptr: usize, n: usize): void {
  if (scratchLen + n <= scratchCap) {
    memory.copy(scratch + scratchLen, ptr, n);
    scratchLen += n;
  } else scratchOverflow = true;
}

/**
 * A decoded escape: UTF-8 into the scratch (WTF-8 for lone surrogates), canonical into the capture.
 */
function emitCodePoint(cp: i32): void {
  if (want) {
    if (cp < 0x80) keepByte(cp);
    else if (cp < 0x800) { keepByte(0xc0 | (cp >> 6)); keepByte(0x80 | (cp & 0x3f)); }
    else if (cp < 0x10000) {
      if (cp >= 0xd800 && cp <= 0xdfff) kind = KIND_WTF8;
      keepByte(0xe0 | (cp >> 12)); keepByte(0x80 | ((cp >> 6) & 0x3f));
      keepByte(0x80 | (cp & 0x3f));
    } else {
      keepByte(0xf0 | (cp >> 18)); keepByte(0x80 | ((cp >> 12) & 0x3f));
      keepByte(0x80 | ((cp >> 6) & 0x3f)); keepByte(0x80 | (cp & 0x3f));
    }
  }
  if (cap) capCodePoint(cp);
}

function flushHigh(): void {
  if (pendingHigh >= 0) {
    emitCodePoint(pendingHigh);
    pendingHigh = -1;
  }
}

function codeUnit(cu: i32): void {
  if (pendingHigh >= 0) {
    if (cu >= 0xdc00 && cu <= 0xdfff) {
      const cp = 0x10000 + ((pendingHigh - 0xd800) << 10) + (cu - 0xdc00);
      pendingHigh = -1;
      emitCodePoint(cp);
      return;
    }
    flushHigh();
  }
  if (cu >= 0xd800 && cu <= 0xdbff) pendingHigh = cu;
  else emitCodePoint(cu);
}

function utf8Reset(): void {
  need = 0;
  seen = 0;
  lower = 0x80;
  upper = 0xbf;
  pend = 0;
}

/** One raw byte >= 0x80 through the replacing decoder (capture only). */
function utf8Byte(b: i32): void {
  if (need == 0) {
    if (b >= 0xc2 && b <= 0xdf) { need = 1; pend = <u32>b; }
    else if (b >= 0xe0 && b <= 0xef) {
      if (b == 0xe0) lower = 0xa0; if (b == 0xed) upper = 0x9f; need = 2; pend = <u32>b;
    }
    else if (b >= 0xf0 && b <= 0xf4) {
      if (b == 0xf0) lower = 0x90; if (b == 0xf4) upper = 0x8f; need = 3; pend = <u32>b;
    }
    else capReplacement();
    return;
  }
  if (b < lower || b > upper) {
    capReplacement();
    utf8Reset();
    utf8Byte(b);
    return;
  }
  lower = 0x80;
  upper = 0xbf;
  pend |= (<u32>b) << (8 * (++seen));
  if (seen == need) {
    for (let i = 0; i <= need; i++) capByte(<i32>((pend >> (8 * i)) & 0xff));
    utf8Reset();
  }
}

function hexValue(b: i32): i32 {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

/**
 * Consumes string bytes from [p, end); returns where it stopped (after the closing quote when
 * done).
 */
export function stringScan(p: usize, end: usize): usize {
  while (p < end) {
    if (esc == 0) {
      // Fast path: a run of plain printable ASCII.
      if (pendingHigh < 0 && need == 0) {
        // Without a capture, bytes >= 0x80 are only kept, so they belong to the run.
        const q = scanPlain(p, end, cap);
        if (q > p) {
          const n = q - p;
          if (want) keepBytes(p, n);
          if (cap) capRun(p, n);
          p = q;
          if (p >= end) break;
        }
      }
      const b = <i32>load<u8>(p);
      if (b >= 0x80) {
        if (want) keepByte(b);
        if (cap) { flushHigh(); utf8Byte(b); } else flushHigh();
        p++;
        continue;
      }
      if (need > 0 && cap) { capReplacement(); utf8Reset(); }
      if (b == 0x22) {
        flushHigh();
        if (cap) capByte(0x22);
        done = true;
        return p + 1;
      }
      if (b < 0x20) { error = STR_ERR_CONTROL; return p; }
      if (b == 0x5c) { esc = 1; p++; continue; }
      flushHigh();
      if (want) keepByte(b);
      if (cap) capByte(b);
      p++;
      continue;
    }
    const b = <i32>load<u8>(p++);
    if (esc == 1) {
      if (b == 0x75) { esc = 2; hex = 0; continue; }
      esc = 0;
      let cp = -1;
      if (b == 0x22 || b == 0x5c || b == 0x2f) cp = b;
      else if (b == 0x62) cp = 0x08;
      else if (b == 0x66) cp = 0x0c;
      else if (b == 0x6e) cp = 0x0a;
      else if (b == 0x72) cp = 0x0d;
      else if (b == 0x74) cp = 0x09;
      if (cp < 0) { error = STR_ERR_ESCAPE; return p - 1; }
      flushHigh();
      emitCodePoint(cp);
      continue;
    }
    const v = hexValue(b);
    if (v < 0) { error = STR_ERR_ESCAPE; return p - 1; }
    hex = (hex << 4) | v;
    if (++esc == 6) {
      esc = 0;
      codeUnit(hex);
    }
  }
  return p;
}
