/**
 * Frame ids are derived from what identifies a function in source (language, name,
 * file or module, line, column), so the same function has the same id in every
 * artifact and run, which makes cross-run drill-down and comparison possible.
 */

export interface FrameIdentity {
  language: string;
  function: string;
  file?: string | null;
  module?: string | null;
  line?: number | null;
  column?: number | null;
}

export function frameId(frame: FrameIdentity): string {
  const key = [
    frame.language,
    frame.function,
    frame.file ?? "",
    frame.module ?? "",
    frame.line ?? "",
    frame.column ?? "",
  ].join("\u0000");
  return "fr_" + sha256Hex(key).slice(0, 20);
}

/** Stack ids hash the ordered frame ids (root first) plus the metric. */
export function stackId(metric: string, frameIds: readonly string[]): string {
  return "st_" + sha256Hex(metric + "\u0000" + frameIds.join("\u0001")).slice(0, 20);
}

/**
 * The same id from the key's UTF-8 bytes: `metric`, a NUL, then the frame ids joined by
 * U+0001. Writers of millions of stacks build the key in one reused buffer instead of
 * joining strings per stack.
 */
export function stackIdOfKey(key: Uint8Array): string {
  return "st_" + (Bun.SHA256.hash(key, "hex") as string).slice(0, 20);
}

/** Bytes of a stack id: "st_" and 20 hex digits. */
export const STACK_ID_BYTES = 23;
const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");
const digest = new Uint8Array(32);

/**
 * `stackIdOfKey` as its (ASCII) bytes, written into `out` (STACK_ID_BYTES long) and returned:
 * no digest string, id string or encoded copy is made per stack.
 */
export function stackIdBytesOfKey(key: Uint8Array, out: Uint8Array): Uint8Array {
  Bun.SHA256.hash(key, digest);
  out[0] = 0x73; // s
  out[1] = 0x74; // t
  out[2] = 0x5f; // _
  for (let k = 0; k < 10; k++) {
    out[3 + 2 * k] = HEX_DIGITS[digest[k]! >> 4]!;
    out[4 + 2 * k] = HEX_DIGITS[digest[k]! & 15]!;
  }
  return out;
}

// Bun's one-shot SHA-256 is several times faster than node:crypto's streaming hasher for
// the hundreds of thousands of short keys a large trace produces; the digest is identical.
function sha256Hex(text: string): string {
  return Bun.SHA256.hash(text, "hex") as string;
}
