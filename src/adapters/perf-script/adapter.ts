/**
 * The `perf-script` adapter: Linux `perf script` text (what `perf script` prints from a
 * perf.data, with or without `-F`, `--header`, several events, any number of processes
 * and threads; also Android simpleperf's `report_sample.py` text, which copies it), as frames, measurements per event metric, call edges and stacks, one
 * track per thread. The text is read line by line in either path; the streaming path
 * spills stacks to scratch space and writes them in chunks, so a file of any size keeps
 * the worker's memory to its distinct frames and per-frame totals.
 */
import type { ExtractInput, ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { SampledStacks } from "../common/sampled-stacks.ts";
import { LineSplitter, splitLines } from "../common/text-line-stream.ts";
import { detectPerfScript } from "./detect.ts";
import { PERF_SCRIPT_FORMAT, PerfScriptReader } from "./perf-script-reader.ts";

const SELF = { name: "perf-script", version: "1.0.0" };

export const perfScriptAdapter: ProducerAdapter = {
  ...SELF,
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "sample_profile",
  mediaType: "text/x-perf-script",
  detect: detectPerfScript,
  extract(input: ExtractInput): NormalizedEvidence {
    const out = new SampledStacks();
    const reader = new PerfScriptReader(out, input.limits.maxEvents);
    const lines = new LineSplitter(PERF_SCRIPT_FORMAT, reader.onLine);
    lines.push(input.bytes);
    lines.finish();
    reader.finish();
    return { ...evidenceOf(reader, out), tables: out.emitAll() };
  },
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const out = new SampledStacks({ spill: input.spill, maxStacksInMemory: input.maxStacksInMemory });
    const reader = new PerfScriptReader(out, input.limits.maxEvents);
    await splitLines(input.chunks, new LineSplitter(PERF_SCRIPT_FORMAT, reader.onLine));
    reader.finish();
    const tables = out.emitSmall();
    await out.writeStacks(input.sink);
    return { ...evidenceOf(reader, out), tables: { frames: tables.frames, frame_measurements: tables.frame_measurements, call_edges: tables.call_edges }, streamed: ["stacks"] };
  },
};

function evidenceOf(reader: PerfScriptReader, out: SampledStacks): Omit<NormalizedEvidence, "tables"> {
  const unsymbolized = out.frames.countUnsymbolized();
  const limitations = reader.limitations();
  if (unsymbolized > 0) limitations.push({ code: "missing_symbols", message: "Frames perf could not name ([unknown])", count: unsymbolized });
  return {
    adapter: SELF.name, adapterVersion: SELF.version, producer: reader.producer, producerVersion: reader.perfVersion,
    limitations,
    summary: { ...reader.summary(), frames: out.frames.size, threads: out.trackCount, metrics: out.metrics.join(",") },
  };
}
