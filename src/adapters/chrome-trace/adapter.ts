/**
 * The `chrome-trace` adapter: Trace Event Format JSON (Chrome/Chromium, DevTools,
 * Node `--trace-events`, torch.profiler/Kineto) as trace_events, `wall_time` slice
 * measurements, and — for DevTools recordings with V8 samples — `cpu_time` evidence.
 *
 * Phases: X and B/E are slices; i/I/n, C, b/e, s/t/f, P and the other defined phases are
 * kept as events with a null duration; M only names processes and threads.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import { writeStackChunks } from "../common/stack-chunks.ts";
import { chromeTraceDescription } from "./description.ts";
import { planTracePieces } from "./piece-plan.ts";
import { scanInPieces } from "./scan-pieces.ts";
import { ChromeTracePipeline } from "./trace-pipeline.ts";

/**
 * Bytes per piece when a trace is scanned in pieces: large enough that a piece's fixed
 * costs (a scanner instance, the prefix read again, one message each way) vanish, small
 * enough that the pieces in flight stay a few tens of MB.
 */
const PIECE_BYTES = 16 << 20;

const SELF = { name: chromeTraceDescription.name, version: chromeTraceDescription.version };

export const chromeTraceAdapter: ProducerAdapter = {
  ...chromeTraceDescription,
  pieceScan: { scanner: "chrome-trace", rowsWhileScanning: false },
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const stackSpill = input.spill
      ? { space: input.spill, maxStacks: input.maxStacksInMemory }
      : undefined;
    const spool = {
      spill: input.spill,
      runEvents: input.spoolRunEvents,
      // A trace may hold an event per ~40 bytes ({"ph":"X","ts":1,"dur":1,"pid":1,"tid":1}),
      // usually fewer (78 bytes each in the bench's generated trace).
      expectedEvents: input.payloadBytes === undefined ? undefined : input.payloadBytes / 40,
      pendingEvents: input.pendingEventsInMemory,
      offload: input.runOffload,
    };
    let pipeline: ChromeTracePipeline | null = null;
    const plan = input.pieces
      ? await planTracePieces(input.pieces.file, input.pieces.pieceBytes ?? PIECE_BYTES)
      : null;
    if (plan && input.pieces) {
      pipeline = ChromeTracePipeline.forPieces(input.limits, spool, stackSpill, input.nestOffload);
      if (
        !(await scanInPieces(
          pipeline,
          plan,
          input.pieces.file,
          input.pieces.threads,
          input.limits,
        ).catch((error: unknown) => {
          pipeline!.dispose();
          throw error;
        }))
      ) {
        // A cut fell inside a value: scan the whole trace in order instead.
        pipeline.dispose();
        pipeline = null;
      }
    }
    if (!pipeline) {
      pipeline = await ChromeTracePipeline.open(input.limits, spool, stackSpill, input.nestOffload);
      try {
        for await (const chunk of input.chunks) {
          // The scanner copies the chunk into its own memory: nothing keeps a view of it.
          pipeline.push(chunk);
          input.releaseChunk?.(chunk);
        }
      } catch (error) {
        pipeline.dispose();
        throw error;
      }
    }
    try {
      const scanned = pipeline.finish(SELF, input.displayName);
      await pipeline.runsWritten();
      for (const batch of scanned.rows) await input.sink.writeBatch(batch);
      await input.sink.endTable?.("trace_events");
      const result = await scanned.complete();
      // Stacks first: the other tables are built whole, and need not be alive while stacks stream.
      const { tries, frames, clock, tracks } = result.stacks;
      await writeStackChunks(input.sink, tries, frames, clock, tracks);
      const evidence = result.evidence();
      const { trace_events: _, stacks: __, ...tables } = evidence.tables;
      return { ...evidence, tables, streamed: ["trace_events", "stacks"] };
    } finally {
      pipeline.dispose();
    }
  },
};
