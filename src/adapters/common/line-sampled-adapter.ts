/**
 * The adapter every line-oriented sampled-stack format shares (perf script, collapsed
 * stacks, DTrace aggregations): a reader fed line by line fills SampledStacks, which spills
 * stacks to scratch space and writes them in chunks, so a file of any size keeps the
 * worker's memory to its distinct frames and per-frame totals. A format supplies its
 * description (declaring the tables written here: frames, frame_measurements, call_edges,
 * stacks), its reader and what it says about the evidence.
 */
import type {
  AdapterDescription,
  ProducerAdapter,
  StreamedEvidence,
  StreamExtractInput,
} from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { SampledStacks } from "./sampled-stacks.ts";
import { LineSplitter, splitLines, type OnLine } from "./text-line-stream.ts";

export interface SampledLineReader {
  readonly onLine: OnLine;
  /** Ends the input (flushes a pending stack, checks what must have been seen). */
  finish(): void;
}

export interface LineSampledFormat<R extends SampledLineReader> {
  /** The format's name in error messages (LineSplitter's refusals). */
  format: string;
  reader(out: SampledStacks, maxEvents: number): R;
  /**
   * Producer, limitations and summary once the reader has finished; `encoding` is the text's
   * (utf-8, utf-16le/be).
   */
  evidence(
    reader: R,
    out: SampledStacks,
    encoding: string,
  ): Pick<NormalizedEvidence, "producer" | "producerVersion" | "limitations" | "summary">;
}

export function lineSampledAdapter<R extends SampledLineReader>(
  description: AdapterDescription,
  f: LineSampledFormat<R>,
): ProducerAdapter {
  const described = (reader: R, out: SampledStacks, lines: LineSplitter) => {
    const evidence = f.evidence(reader, out, lines.encoding);
    return {
      adapter: description.name,
      adapterVersion: description.version,
      ...evidence,
      limitations: [...evidence.limitations, ...out.deepStacksLimitation()],
    };
  };
  return {
    ...description,
    async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
      const out = new SampledStacks({
        spill: input.spill,
        maxStacksInMemory: input.maxStacksInMemory,
      });
      const reader = f.reader(out, input.limits.maxEvents);
      const lines = new LineSplitter(f.format, reader.onLine);
      await splitLines(input.chunks, lines);
      reader.finish();
      const tables = await out.emitStreamed(input.sink);
      return { ...described(reader, out, lines), tables, streamed: ["stacks"] };
    },
  };
}
