/**
 * The `dtrace-stacks` adapter: DTrace aggregations of `stack()` or `ustack()` printed as
 * text (illumos, macOS, FreeBSD; FlameGraph's stackcollapse.pl input). Counts become
 * `samples`, on stacks outermost caller first. Read line by line; stacks spill and
 * stream like the other sampled formats, so file size does not grow memory.
 */
import type { DetectInput, ExtractInput, ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { SampledStacks } from "../common/sampled-stacks.ts";
import { LineSplitter, splitLines } from "../common/text-line-stream.ts";
import { DTRACE_FORMAT, DtraceReader } from "./dtrace-reader.ts";

const SELF = { name: "dtrace-stacks", version: "1.0.0" };

export function detectDtraceStacks({ head }: DetectInput): number {
  if (/^\s*CPU\s+ID\s+FUNCTION:NAME\s*\r?\n/.test(head) && /\n\s+\S+`\S+/.test(head)) return 0.9;
  // Without the header: indented module`function frames ended by an indented count.
  return /^(?:\s*\r?\n)*(?:[ \t]+\S+`\S+[ \t]*\r?\n)+[ \t]+\d+[ \t]*\r?\n/.test(head) ? 0.8 : 0;
}

export const dtraceStacksAdapter: ProducerAdapter = {
  ...SELF,
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "sample_profile",
  mediaType: "text/x-dtrace-stacks",
  detect: detectDtraceStacks,
  extract(input: ExtractInput): NormalizedEvidence {
    const out = new SampledStacks();
    const reader = new DtraceReader(out, input.limits.maxEvents);
    const lines = new LineSplitter(DTRACE_FORMAT, reader.onLine);
    lines.push(input.bytes);
    lines.finish();
    reader.finish();
    return { ...evidenceOf(reader, out), tables: out.emitAll() };
  },
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const out = new SampledStacks({ spill: input.spill, maxStacksInMemory: input.maxStacksInMemory });
    const reader = new DtraceReader(out, input.limits.maxEvents);
    await splitLines(input.chunks, new LineSplitter(DTRACE_FORMAT, reader.onLine));
    reader.finish();
    const tables = out.emitSmall();
    await out.writeStacks(input.sink);
    return { ...evidenceOf(reader, out), tables: { frames: tables.frames, frame_measurements: tables.frame_measurements, call_edges: tables.call_edges }, streamed: ["stacks"] };
  },
};

function evidenceOf(reader: DtraceReader, out: SampledStacks): Omit<NormalizedEvidence, "tables"> {
  const limitations = reader.limitations();
  const unsymbolized = out.frames.countUnsymbolized();
  if (unsymbolized > 0) limitations.push({ code: "missing_symbols", message: "Frames DTrace printed as addresses", count: unsymbolized });
  return {
    adapter: SELF.name, adapterVersion: SELF.version, producer: "dtrace", producerVersion: null, limitations,
    summary: { stacks: reader.stacks, header_lines: reader.headerLines, frames: out.frames.size },
  };
}
