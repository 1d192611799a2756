/**
 * The `collapsed-stacks` adapter: folded stacks (`a;b;c 12`) from stackcollapse-*.pl,
 * FlameGraph, inferno, py-spy `--format raw` and others, with stackcollapse's `_[k]`,
 * `_[j]`, `_[i]`, `_[w]` annotations and `--pid`/`--tid` prefixes; CRLF and UTF-16 with a
 * byte order mark are read as such. Counts become `samples`. Read line by line; stacks
 * spill and stream like the other sampled formats, so file size does not grow memory.
 */
import type { ExtractInput, ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { SampledStacks } from "../common/sampled-stacks.ts";
import { LineSplitter, splitLines } from "../common/text-line-stream.ts";
import { COLLAPSED_FORMAT, CollapsedReader } from "./collapsed-reader.ts";
import { detectCollapsed } from "./detect.ts";

const SELF = { name: "collapsed-stacks", version: "1.0.0" };

export const collapsedStacksAdapter: ProducerAdapter = {
  ...SELF,
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "sample_profile",
  mediaType: "text/x-collapsed-stacks",
  detect: detectCollapsed,
  extract(input: ExtractInput): NormalizedEvidence {
    const out = new SampledStacks();
    const reader = new CollapsedReader(out, input.limits.maxEvents);
    const lines = new LineSplitter(COLLAPSED_FORMAT, reader.onLine);
    lines.push(input.bytes);
    lines.finish();
    reader.finish();
    return { ...evidenceOf(reader, out, lines.encoding), tables: out.emitAll() };
  },
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const out = new SampledStacks({ spill: input.spill, maxStacksInMemory: input.maxStacksInMemory });
    const reader = new CollapsedReader(out, input.limits.maxEvents);
    const lines = new LineSplitter(COLLAPSED_FORMAT, reader.onLine);
    await splitLines(input.chunks, lines);
    reader.finish();
    const tables = out.emitSmall();
    await out.writeStacks(input.sink);
    return { ...evidenceOf(reader, out, lines.encoding), tables: { frames: tables.frames, frame_measurements: tables.frame_measurements, call_edges: tables.call_edges }, streamed: ["stacks"] };
  },
};

function evidenceOf(reader: CollapsedReader, out: SampledStacks, encoding: string): Omit<NormalizedEvidence, "tables"> {
  const limitations = reader.limitations();
  const unsymbolized = out.frames.countUnsymbolized();
  if (unsymbolized > 0) limitations.push({ code: "missing_symbols", message: "[unknown] frames", count: unsymbolized });
  return {
    adapter: SELF.name, adapterVersion: SELF.version, producer: null, producerVersion: null, limitations,
    summary: { ...reader.summary(), frames: out.frames.size, threads: out.trackCount, encoding },
  };
}
