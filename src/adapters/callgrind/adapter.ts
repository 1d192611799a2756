/**
 * The `callgrind` adapter: the callgrind profile format of Valgrind's callgrind (and
 * cachegrind), also written by pprof's `-callgrind` and PHP's Xdebug: every event column
 * a metric (Ir → instructions, Dr/Dw, cache and branch simulation, time and memory in
 * the producer's unit scaled to ns or bytes), self cost per function, call arcs with
 * their call counts and inclusive cost. Read line by line in either path; memory holds
 * the distinct functions and call arcs only, whatever the file's size.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { LineSplitter, splitLines } from "../common/text-line-stream.ts";
import { CALLGRIND_FORMAT, CallgrindReader } from "./callgrind-reader.ts";
import { callgrindDescription } from "./description.ts";

const SELF = { name: callgrindDescription.name, version: callgrindDescription.version };

export const callgrindAdapter: ProducerAdapter = {
  ...callgrindDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const reader = new CallgrindReader(input.limits.maxEvents);
    await splitLines(input.chunks, new LineSplitter(CALLGRIND_FORMAT, reader.onLine));
    // Functions and call arcs only: small enough to hand over whole.
    return { ...evidenceOf(reader), streamed: [] };
  },
};

function evidenceOf(reader: CallgrindReader): NormalizedEvidence {
  reader.finish();
  const tables = emptyTables();
  const counts = reader.graph.emit(tables);
  const limitations = reader.limitations();
  if (counts.cycleFunctions > 0) {
    limitations.push({
      code: "call_cycles",
      message:
        "Functions on call cycles through two or more functions (mutual recursion): their " +
        "inclusive values count the cost inside the cycle more than once",
      count: counts.cycleFunctions,
    });
  }
  if (counts.unknownCallCounts > 0)
    limitations.push({
      code: "call_counts_unknown",
      message:
        "Call arcs written with calls=0 (pprof's output does not know call counts): their " +
        "sample_count is 0",
      count: counts.unknownCallCounts,
    });
  if (counts.unsymbolized > 0)
    limitations.push({
      code: "missing_symbols",
      message: "Functions Valgrind names only by their address",
      count: counts.unsymbolized,
    });
  const [producer, producerVersion] = reader.producer();
  return {
    adapter: SELF.name,
    adapterVersion: SELF.version,
    producer,
    producerVersion,
    tables,
    limitations,
    summary: {
      cost_lines: reader.costLines,
      calls: reader.calls,
      call_arcs: reader.graph.edgeCount,
      frames: counts.frames,
      parts: reader.parts,
      metrics: reader.graph.metrics.map((m) => m.metric).join(","),
      events_not_imported: reader.skippedEvents.join(","),
    },
  };
}
