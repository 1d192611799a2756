/**
 * Recognising legacy pprof payloads from their head. Each form has a fixed opening: the
 * binary CPU header words (0, 3, 0|1, period, 0), or a first text line naming the
 * profile. profile.proto payloads never start like either (a zero byte is no protobuf
 * tag, and text headers are not valid Profile fields), so this and the `pprof` adapter
 * do not compete for a file.
 */
import type { DetectInput } from "../adapter.ts";
import { cpuHeaderOf, isHeapHeader, isJavaTextHeader } from "./legacy-headers.ts";

/** The binary header is at most five 64-bit words. */
const HEADER_BYTES = 40;

/**
 * The head's leading bytes. Older callers pass only the UTF-8 decoded head; characters
 * below 0x80 decode to themselves, so a header made of such bytes can still be read back.
 */
function leadingBytes({ head, headBytes }: DetectInput): Uint8Array {
  if (headBytes) return headBytes;
  const out: number[] = [];
  for (let i = 0; i < head.length && i < HEADER_BYTES && head.charCodeAt(i) < 0x80; i++)
    out.push(head.charCodeAt(i));
  return Uint8Array.from(out);
}

export function detectPprofLegacy(input: DetectInput): number {
  if (cpuHeaderOf(leadingBytes(input))) return 0.95;
  const newline = input.head.indexOf("\n");
  const firstLine = newline < 0 ? input.head : input.head.slice(0, newline);
  if (isHeapHeader(firstLine)) return 0.95;
  if (firstLine.startsWith("--- contention") || isJavaTextHeader(firstLine)) return 0.9;
  return 0;
}
