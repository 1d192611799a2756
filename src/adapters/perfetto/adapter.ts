/**
 * The `perfetto` adapter: Perfetto protobuf traces (TracePacket streams from Perfetto's
 * SDK, Chrome/Chromium `--trace-startup-format=proto`, the perfetto CLI), as trace_events,
 * wall-time slice measurements and CPU sample stacks. No Trace Processor is needed.
 */
import type {
  DetectInput,
  ProducerAdapter,
  StreamedEvidence,
  StreamExtractInput,
} from "../adapter.ts";
import { TRACE_TABLES } from "../../domain/normalized-evidence.ts";
import { fieldsWithin, sniffFirstMessage, topLevelFields } from "../wasm/proto-sniff.ts";
import { writeStackChunks } from "../common/stack-chunks.ts";
import { PerfettoPipeline } from "./perfetto-pipeline.ts";

const SELF = { name: "perfetto", version: "1.0.0" };
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

export function detectPerfetto({ headBytes, displayName }: DetectInput): number {
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

export const perfettoAdapter: ProducerAdapter = {
  ...SELF,
  tables: TRACE_TABLES,
  artifactKind: "execution_trace",
  mediaType: "application/vnd.perfetto.trace",
  detect: detectPerfetto,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const stackSpill = input.spill
      ? { space: input.spill, maxStacks: input.maxStacksInMemory }
      : undefined;
    const pipeline = await PerfettoPipeline.open(
      input.limits,
      {
        spill: input.spill,
        runEvents: input.spoolRunEvents,
        pendingEvents: input.pendingEventsInMemory,
        offload: input.runOffload,
      },
      stackSpill,
    );
    try {
      for await (const chunk of input.chunks) pipeline.push(chunk);
      const result = pipeline.finish(SELF);
      await pipeline.runsWritten();
      for (const batch of result.rows) await input.sink.writeBatch(batch);
      const { tries, frames, clock, tracks } = result.stacks;
      await writeStackChunks(input.sink, tries, frames, clock, tracks);
      const evidence = result.evidence();
      const { trace_events: _, stacks: __, ...tables } = evidence.tables;
      return {
        ...evidence,
        tables,
        streamed: ["trace_events", "stacks"],
        summary: { ...evidence.summary, trace_event_rows: result.rowCounts.rows },
      };
    } finally {
      pipeline.dispose();
    }
  },
};
