/**
 * The host side of a scanner's string interning: decodes each new string once and maps
 * every scanner id to one canonical id per distinct string (the scanner may hand out a
 * second id for a string after clearing its bounded table).
 */
const utf8 = new TextDecoder("utf-8");

export class HostStrings {
  readonly values: string[] = [];
  /** Scanner id → canonical id (the first id the string was seen under). */
  private readonly canon: number[] = [];
  private readonly byValue = new Map<string, number>();
  /** UTF-8 bytes per canonical id, built on demand for Arrow columns. */
  private readonly encoded: (Uint8Array | undefined)[] = [];

  /** Reads the `count` entries (id i32, kind i32, length i32, bytes padded to 4) at `ptr`. */
  addFrom(memory: Uint8Array, ptr: number, count: number): void {
    const view = new DataView(memory.buffer, memory.byteOffset);
    let at = ptr;
    for (let n = 0; n < count; n++) {
      const id = view.getInt32(at, true);
      const kind = view.getInt32(at + 4, true);
      const length = view.getInt32(at + 8, true);
      const bytes = memory.subarray(at + 12, at + 12 + length);
      const value = kind === 1 ? decodeWtf8(bytes) : utf8.decode(bytes);
      at += (15 + length) & ~3;
      while (this.canon.length < id) this.canon.push(-1);
      const known = this.byValue.get(value);
      if (known !== undefined) {
        this.canon[id] = known;
      } else {
        this.canon[id] = id;
        this.byValue.set(value, id);
      }
      this.values[id] = value;
    }
  }

  /**
   * The canonical id of a text that comes from elsewhere (another scanner's table): the
   * id it already has, or a new one after every id handed out so far.
   */
  intern(value: string): number {
    const known = this.byValue.get(value);
    if (known !== undefined) return known;
    const id = Math.max(this.values.length, this.canon.length);
    this.canon[id] = id;
    this.values[id] = value;
    this.byValue.set(value, id);
    return id;
  }

  /** Canonical id of a scanner id (-1 stays -1). */
  id(scannerId: number): number {
    return scannerId < 0 ? -1 : this.canon[scannerId]!;
  }

  get(id: number): string {
    return this.values[id]!;
  }

  /** The string's UTF-8 bytes (cached per canonical id). */
  bytes(id: number): Uint8Array {
    let b = this.encoded[id];
    if (b === undefined) {
      b = new TextEncoder().encode(this.values[id]!);
      this.encoded[id] = b;
    }
    return b;
  }
}

/**
 * WTF-8 (UTF-8 that may encode lone surrogates, from `\ud800`-style escapes) → string.
 * Invalid bytes become U+FFFD as in a replacing UTF-8 decoder.
 */
export function decodeWtf8(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (
      b === 0xed &&
      i + 2 < bytes.length &&
      bytes[i + 1]! >= 0xa0 &&
      bytes[i + 1]! <= 0xbf &&
      (bytes[i + 2]! & 0xc0) === 0x80
    ) {
      out += String.fromCharCode(0xd000 | ((bytes[i + 1]! & 0x3f) << 6) | (bytes[i + 2]! & 0x3f));
      i += 3;
      continue;
    }
    let j = i;
    while (
      j < bytes.length &&
      !(bytes[j] === 0xed && j + 1 < bytes.length && bytes[j + 1]! >= 0xa0)
    )
      j++;
    out += utf8.decode(bytes.subarray(i, Math.max(j, i + 1)));
    i = Math.max(j, i + 1);
  }
  return out;
}
