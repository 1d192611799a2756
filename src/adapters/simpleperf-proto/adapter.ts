/**
 * The `simpleperf-proto` adapter: Android simpleperf's `report_sample.py --protobuf`
 * output (gzip handled by the worker): samples per thread with their callchains, weighted
 * by event count under each event's metric, as frames, measurements, call edges and
 * stacks. Sample times become `stacks.first_ts_ns`; no per-sample trace events, as for
 * perf script. Read record by record; the compact samples (kept until the files and
 * threads that follow them name them) and the stacks spill, and stacks stream.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import { RecordSpool } from "../common/record-spool.ts";
import { SampledStacks } from "../common/sampled-stacks.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { simpleperfProtoDescription } from "./description.ts";
import { RecordFramer } from "./record-framer.ts";
import { SimpleperfReader } from "./simpleperf-reader.ts";

const SELF = {
  name: simpleperfProtoDescription.name,
  version: simpleperfProtoDescription.version,
};

function described(
  reader: SimpleperfReader,
  framer: RecordFramer,
  out: SampledStacks,
): Omit<NormalizedEvidence, "tables"> {
  const limitations = reader.limitations();
  const unsymbolized = out.frames.countUnsymbolized();
  if (unsymbolized > 0)
    limitations.push({
      code: "missing_symbols",
      message: "Frames simpleperf could not name ([unknown] in their file)",
      count: unsymbolized,
    });
  limitations.push(...out.deepStacksLimitation());
  return {
    adapter: SELF.name,
    adapterVersion: SELF.version,
    producer: "simpleperf",
    producerVersion: null,
    limitations,
    summary: {
      ...reader.summary(),
      format_version: framer.version,
      records: framer.records,
      frames: out.frames.size,
      threads: out.trackCount,
      metrics: out.metrics.join(","),
    },
  };
}

export const simpleperfProtoAdapter: ProducerAdapter = {
  ...simpleperfProtoDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const spool = new RecordSpool(input.spill, input.recordBytesInMemory);
    const reader = new SimpleperfReader(input.limits.maxEvents, spool);
    const framer = new RecordFramer(reader.onRecord);
    const out = new SampledStacks({
      spill: input.spill,
      maxStacksInMemory: input.maxStacksInMemory,
    });
    try {
      for await (const chunk of input.chunks) framer.push(chunk);
      framer.finish();
      reader.finish(out);
    } finally {
      spool.dispose();
    }
    const tables = await out.emitStreamed(input.sink);
    return { ...described(reader, framer, out), tables, streamed: ["stacks"] };
  },
};
