/**
 * The capture buffer: canonical JSON text (what JSON.stringify(JSON.parse(x)) would
 * print) of the value being captured. Text the scanner cannot canonicalize by itself
 * (numbers whose shortest form needs a float printer, objects with integer-like keys,
 * which JavaScript orders first) is flagged slow for the host to re-serialize.
 */
import { region } from "../common/regions";

let buf: usize = 0;
let cap: usize = 0;
let len: usize = 0;
let overflow: bool = false;
let slow: bool = false;
let active: bool = false;

export function captureInit(bytes: usize): bool {
  buf = region(bytes);
  cap = bytes;
  return buf != 0;
}

export function captureStart(): void {
  len = 0;
  overflow = false;
  slow = false;
  active = true;
}

export function captureStop(): void { active = false; }
@inline export function capturing(): bool { return active; }
export function captureMarkSlow(): void { slow = true; }
export function captureIsSlow(): bool { return slow; }
export function captureOverflowed(): bool { return overflow; }
export function capturePtr(): usize { return buf; }
export function captureLen(): usize { return len; }

@inline export function capByte(b: i32): void {
  if (len < cap) store<u8>(buf + len++, <u8>b);
  else overflow = true;
}

@inline export function capBytes(ptr: usize, n: usize): void {
  if (len + n <= cap) {
    memory.copy(buf + len, ptr, n);
    len += n;
  } else overflow = true;
}

/**
 * capBytes for bytes of the JSON scanner's own buffers (input, scratch, static data),
 * which are never the last region, so reading 16 bytes from `ptr` stays in memory: short
 * runs (keys, numbers, small strings) are one vector move. The capture buffer has room
 * for the whole vector; the bytes after the run are overwritten later anyway.
 */
@inline export function capRun(ptr: usize, n: usize): void {
  if (n <= 16 && len + 16 <= cap) {
    v128.store(buf + len, v128.load(ptr));
    len += n;
  } else capBytes(ptr, n);
}

@inline function hexDigit(v: i32): i32 {
  const d = v & 15;
  return d < 10 ? 0x30 + d : 0x57 + d; // lowercase, as JSON.stringify writes
}

/** Writes one decoded code point (or lone surrogate) the way JSON.stringify escapes it. */
export function capCodePoint(cp: i32): void {
  if (cp == 0x22) { capByte(0x5c); capByte(0x22); return; }
  if (cp == 0x5c) { capByte(0x5c); capByte(0x5c); return; }
  if (cp < 0x20) {
    capByte(0x5c);
    if (cp == 0x08) capByte(0x62);
    else if (cp == 0x0c) capByte(0x66);
    else if (cp == 0x0a) capByte(0x6e);
    else if (cp == 0x0d) capByte(0x72);
    else if (cp == 0x09) capByte(0x74);
    else {
      capByte(0x75); capByte(0x30); capByte(0x30);
      capByte(hexDigit(cp >> 4)); capByte(hexDigit(cp));
    }
    return;
  }
  if (cp >= 0xd800 && cp <= 0xdfff) {
    capByte(0x5c); capByte(0x75);
    capByte(hexDigit(cp >> 12)); capByte(hexDigit(cp >> 8));
    capByte(hexDigit(cp >> 4)); capByte(hexDigit(cp));
    return;
  }
  if (cp < 0x80) { capByte(cp); return; }
  if (cp < 0x800) { capByte(0xc0 | (cp >> 6)); capByte(0x80 | (cp & 0x3f)); return; }
  if (cp < 0x10000) {
    capByte(0xe0 | (cp >> 12)); capByte(0x80 | ((cp >> 6) & 0x3f)); capByte(0x80 | (cp & 0x3f));
    return;
  }
  capByte(0xf0 | (cp >> 18)); capByte(0x80 | ((cp >> 12) & 0x3f));
  capByte(0x80 | ((cp >> 6) & 0x3f)); capByte(0x80 | (cp & 0x3f));
}

/** U+FFFD, what a replacing UTF-8 decoder makes of an invalid byte sequence. */
export function capReplacement(): void { capByte(0xef); capByte(0xbf); capByte(0xbd); }
