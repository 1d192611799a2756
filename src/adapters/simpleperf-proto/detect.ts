/**
 * Recognising simpleperf's protobuf report from its head: the magic, then the uint16
 * format version. The record framer checks the same magic (record-framer.ts).
 */
import type { DetectInput } from "../adapter.ts";

export const SIMPLEPERF_MAGIC = "SIMPLEPERF";
const MAGIC = new TextEncoder().encode(SIMPLEPERF_MAGIC);

export function detectSimpleperfProto({ headBytes, head }: DetectInput): number {
  const bytes = headBytes ?? new TextEncoder().encode(head.slice(0, MAGIC.length + 2));
  if (bytes.length < MAGIC.length + 2) return 0;
  for (let i = 0; i < MAGIC.length; i++) if (bytes[i] !== MAGIC[i]) return 0;
  // The uint16 version follows: 1 so far; a text file starting with the word would have a printable
  // byte there.
  return bytes[MAGIC.length + 1] === 0 ? 0.95 : 0;
}
