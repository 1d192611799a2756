/**
 * A growable UTF-8 byte buffer for writing JSON text and column cells without creating a
 * JS string per value (the OTLP protobuf stream path and Perfetto debug annotations write
 * millions of them).
 */
import { copyBytes } from "./growable.ts";

const encoder = new TextEncoder();

/** Lowercase hex of each byte value, as two ASCII codes packed little-endian in a u16. */
const HEX_PAIRS = new Uint16Array(256);
for (let b = 0; b < 256; b++) {
  const hex = b.toString(16).padStart(2, "0");
  HEX_PAIRS[b] = hex.charCodeAt(0) | (hex.charCodeAt(1) << 8);
}

/** JSON.stringify's escape of each ASCII control character, quote and backslash; 0 when none. */
const ESCAPES: (Uint8Array | null)[] = Array.from({ length: 128 }, (_, c) =>
  c < 0x20 || c === 0x22 || c === 0x5c
    ? encoder.encode(JSON.stringify(String.fromCharCode(c)).slice(1, -1))
    : null,
);
const utf8 = new TextDecoder();
const exact = new TextDecoder("utf-8", { ignoreBOM: true });

export class ByteBuf {
  data: Uint8Array;
  used = 0;

  constructor(initial = 1024) {
    this.data = new Uint8Array(initial);
  }

  ensure(extra: number): void {
    if (this.used + extra <= this.data.length) return;
    let size = this.data.length * 2;
    while (size < this.used + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.data.subarray(0, this.used));
    this.data = next;
  }

  byte(b: number): void {
    if (this.used >= this.data.length) this.ensure(1);
    this.data[this.used++] = b;
  }

  /**
   * A safe integer's decimal digits (its JSON text; -0 is 0), without a string: String() was a
   * third of a Perfetto counter reading's cost, and of an integer debug annotation's.
   */
  safeInteger(value: number): void {
    let n = value;
    if (n < 0) {
      this.byte(0x2d); // -
      n = -n;
    }
    let digits = 1;
    for (let p = 10; p <= n; p *= 10) digits++;
    this.ensure(digits);
    const data = this.data;
    let at = this.used + digits;
    this.used = at;
    do {
      const q = Math.floor(n / 10);
      data[--at] = 0x30 + (n - q * 10);
      n = q;
    } while (n > 0);
  }

  /** A string known to be ASCII (type names, numbers, base64). */
  ascii(text: string): void {
    this.ensure(text.length);
    const { data } = this;
    let at = this.used;
    for (let i = 0; i < text.length; i++) data[at++] = text.charCodeAt(i);
    this.used = at;
  }

  /** Precomputed UTF-8 bytes. */
  raw(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    copyBytes(bytes, 0, n, this.data, this.used);
    this.used += n;
  }

  copy(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.ensure(n);
    copyBytes(src, start, n, this.data, this.used);
    this.used += n;
  }

  /** Lowercase hex of src[start, end). */
  hex(src: Uint8Array, start: number, end: number): void {
    this.ensure(2 * (end - start));
    const { data } = this;
    let at = this.used;
    for (let i = start; i < end; i++) {
      const pair = HEX_PAIRS[src[i]!]!;
      data[at++] = pair & 0xff;
      data[at++] = pair >> 8;
    }
    this.used = at;
  }

  /**
   * The UTF-8 text in src[start, end) as the string a replacing TextDecoder makes of it:
   * copied when it is ASCII, decoded and re-encoded otherwise (invalid sequences become
   * U+FFFD, a leading BOM is dropped), so bytes always equal the decoded string's.
   */
  text(src: Uint8Array, start: number, end: number): void {
    for (let i = start; i < end; i++) {
      if (src[i]! >= 0x80) {
        this.raw(encoder.encode(utf8.decode(src.subarray(start, end))));
        return;
      }
    }
    this.copy(src, start, end);
  }

  /** The same text as a JSON string literal, byte for byte what JSON.stringify writes. */
  jsonString(src: Uint8Array, start: number, end: number): void {
    for (let i = start; i < end; i++) {
      if (src[i]! >= 0x80) {
        this.raw(encoder.encode(JSON.stringify(utf8.decode(src.subarray(start, end)))));
        return;
      }
    }
    this.ensure(2 + 6 * (end - start));
    const { data } = this;
    let at = this.used;
    data[at++] = 0x22;
    for (let i = start; i < end; i++) {
      const c = src[i]!;
      const escaped = c < 0x20 || c === 0x22 || c === 0x5c ? ESCAPES[c]! : null;
      if (escaped === null) data[at++] = c;
      else for (let k = 0; k < escaped.length; k++) data[at++] = escaped[k]!;
    }
    data[at++] = 0x22;
    this.used = at;
  }

  /** The bytes written, as a string (for the few rows kept as values). */
  toString(start = 0): string {
    return exact.decode(this.data.subarray(start, this.used));
  }
}
