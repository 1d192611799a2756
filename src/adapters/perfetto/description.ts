/** What the `perfetto` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";
import { TRACE_TABLES } from "../../domain/normalized-evidence.ts";
import { fieldsWithin, sniffFirstMessage, topLevelFields } from "../wasm/proto-sniff.ts";

/** TracePacket fields (number → wire type) common at the start of a trace. */
const PACKET_FIELDS: Record<number, number> = {
  1: 2,
  2: 2,
  3: 0,
  6: 2,
  8: 0,
  9: 2,
  10: 0,
  11: 2,
  12: 2,
  13: 0,
  33: 2,
  35: 2,
  36: 2,
  41: 0,
  42: 0,
  43: 2,
  44: 2,
  45: 2,
  37: 2,
  50: 2,
  51: 2,
  54: 2,
  58: 0,
  59: 2,
  60: 2,
  66: 2,
  69: 2,
  79: 0,
  87: 0,
  89: 2,
};

function detectPerfetto({ headBytes, displayName }: DetectInput): number {
  if (!headBytes) return 0;
  const top = topLevelFields(headBytes, 8);
  if (top.length === 0 || !top.every((f) => f.number === 1 && f.wire === 2)) return 0;
  const first = sniffFirstMessage(headBytes);
  if (!first || !fieldsWithin(first.inner, PACKET_FIELDS)) return 0;
  // 50: a compressed packet group, which is how traces written with compression begin.
  const typical = first.inner.some((f) =>
    [8, 10, 11, 12, 13, 41, 50, 58, 59, 60].includes(f.number),
  );
  const named = /\.(pftrace|perfetto-trace|perfetto|proto)(\.gz)?$/i.test(displayName);
  return typical ? (named ? 0.95 : 0.85) : named ? 0.6 : 0.3;
}

export const perfettoDescription: AdapterDescription = {
  name: "perfetto",
  version: "1.0.0",
  tables: [...TRACE_TABLES, "trace_counters"],
  artifactKind: "execution_trace",
  mediaType: "application/vnd.perfetto.trace",
  detect: detectPerfetto,
};
