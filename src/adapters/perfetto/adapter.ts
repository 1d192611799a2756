/**
 * The `perfetto` adapter: Perfetto protobuf traces (TracePacket streams from Perfetto's
 * SDK, Chrome/Chromium `--trace-startup-format=proto`, the perfetto CLI), as trace_events,
 * wall-time slice measurements and CPU sample stacks. No Trace Processor is needed.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import { writeStackChunks } from "../common/stack-chunks.ts";
import { perfettoDescription } from "./description.ts";
import { PerfettoPipeline } from "./perfetto-pipeline.ts";

const SELF = { name: perfettoDescription.name, version: perfettoDescription.version };

/**
 * The events a trace of `bytes` may hold, rather more than fewer: the Chromium startup trace of the
 * corpus holds one per 25 bytes (counter readings of its slices' begins and ends are events too).
 */
function expectedEvents(bytes: number | undefined): number | undefined {
  return bytes === undefined ? undefined : bytes / 16;
}

export const perfettoAdapter: ProducerAdapter = {
  ...perfettoDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const stackSpill = input.spill
      ? { space: input.spill, maxStacks: input.maxStacksInMemory }
      : undefined;
    const pipeline = await PerfettoPipeline.open(
      input.limits,
      {
        spill: input.spill,
        runEvents: input.spoolRunEvents,
        expectedEvents: expectedEvents(input.payloadBytes),
        pendingEvents: input.pendingEventsInMemory,
        offload: input.runOffload,
      },
      stackSpill,
      input.nestOffload,
    );
    try {
      for await (const chunk of input.chunks) {
        // The scanner copies the chunk into its own memory: nothing keeps a view of it.
        pipeline.push(chunk);
        input.releaseChunk?.(chunk);
        // Counter readings are encoded while the scan goes on (see counter-row-writer.ts).
        for (const batch of pipeline.counterBatches()) await input.sink.writeBatch(batch);
      }
      await pipeline.endScan(input.passEnded);
      for (const batch of pipeline.counterBatches()) await input.sink.writeBatch(batch);
      if (pipeline.counterRows > 0) await input.sink.endTable?.("trace_counters");
      // What the scan held (two runs' columns) is garbage now, before the profiles are assembled.
      // With the checkpoints during the assembly, the corpus's Chromium startup trace repeated to
      // 2 GB (one V8 profile of 1.9M samples) went from 526 to 481 MiB at the end of its scan
      // (RSS before the collection there; one import each).
      input.checkpoint?.();
      const result = pipeline.finish(SELF, input.checkpoint);
      for (const batch of result.rows) await input.sink.writeBatch(batch);
      await input.sink.endTable?.("trace_events");
      await result.nested();
      const { tries, frames, clock, tracks } = result.stacks;
      await writeStackChunks(input.sink, tries, frames, clock, tracks);
      const evidence = result.evidence();
      const { trace_events: _, stacks: __, trace_counters: ___, ...tables } = evidence.tables;
      return {
        ...evidence,
        tables,
        streamed: ["trace_events", "stacks", "trace_counters"],
        summary: {
          ...evidence.summary,
          trace_event_rows: result.rowCounts.rows,
          trace_counter_rows: pipeline.counterRows,
        },
      };
    } finally {
      pipeline.dispose();
    }
  },
};
