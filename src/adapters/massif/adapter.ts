/**
 * The `massif` adapter: Valgrind massif's `massif.out.PID` text. The peak snapshot's
 * allocation tree becomes `inuse_space` frames, measurements, edges and stacks (the heap
 * in use at its highest, by call stack); the snapshot series is summarized. Read line by
 * line in either path, keeping one tree at a time.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { SampledStacks } from "../common/sampled-stacks.ts";
import { LineSplitter, splitLines } from "../common/text-line-stream.ts";
import { massifDescription } from "./description.ts";
import { addMassifTree, massifLimitations } from "./massif-evidence.ts";
import { MASSIF_FORMAT, MassifReader } from "./massif-reader.ts";

const SELF = { name: massifDescription.name, version: massifDescription.version };

export const massifAdapter: ProducerAdapter = {
  ...massifDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const reader = new MassifReader(input.limits.maxEvents);
    await splitLines(input.chunks, new LineSplitter(MASSIF_FORMAT, reader.onLine));
    return { ...evidenceOf(reader), streamed: [] };
  },
};

/** One tree at most is ever held, so the small tables are built whole in both paths. */
function evidenceOf(reader: MassifReader): NormalizedEvidence {
  const chosen = reader.finish();
  const out = new SampledStacks();
  const counts =
    chosen === null ? { belowThresholdBytes: 0, unattributedBytes: 0 } : addMassifTree(chosen, out);
  return {
    adapter: SELF.name,
    adapterVersion: SELF.version,
    producer: "massif",
    producerVersion: null,
    tables: out.emitAll(),
    limitations: [
      ...massifLimitations(
        counts,
        reader.snapshots,
        reader.hadPeak,
        chosen,
        out.frames.countUnsymbolized(),
      ),
      ...out.deepStacksLimitation(),
    ],
    summary: {
      snapshots: reader.snapshots,
      time_unit: reader.timeUnit,
      peak_snapshot: chosen?.index ?? null,
      peak_time: chosen?.time ?? null,
      peak_heap_bytes: chosen?.heapBytes ?? null,
      peak_heap_extra_bytes: chosen?.extraBytes ?? null,
      peak_stacks_bytes: chosen?.stacksBytes ?? null,
      frames: out.frames.size,
    },
  };
}
