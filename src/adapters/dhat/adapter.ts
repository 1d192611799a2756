/**
 * The `dhat` adapter: DHAT's JSON profiles (Valgrind `--tool=dhat`, and the dhat-rs
 * crate's `dhat-heap.json`): program points with their allocation totals and stacks, as
 * frames, measurements, call edges and stacks (dhat-evidence.ts says how). Read by the
 * WASM JSON scanner in both paths: the frame table is kept as strings, program points as
 * compact records that spill to scratch space (DHAT writes the frame table after them),
 * and stacks spill and stream, so the worker's memory does not grow with the file.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { RecordSpool } from "../common/record-spool.ts";
import { SampledStacks } from "../common/sampled-stacks.ts";
import { DEFAULT_MAX_STACKS } from "../common/stack-trie.ts";
import { dhatDescription } from "./description.ts";
import { dhatEvidence } from "./dhat-evidence.ts";
import { scanDhat } from "./scan-dhat.ts";

const SELF = { name: dhatDescription.name, version: dhatDescription.version };
/**
 * Stacks a metric's trie holds before spilling: the shared default is sized for one metric's
 * trie, and a heap profile fills four (alloc and in-use, space and objects), with as many
 * distinct stacks as program points (DHAT aggregates by stack), so they share it.
 */
const MAX_STACKS_PER_METRIC = DEFAULT_MAX_STACKS / 4;

export const dhatAdapter: ProducerAdapter = {
  ...dhatDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const points = new RecordSpool(input.spill, input.recordBytesInMemory);
    const out = new SampledStacks({
      spill: input.spill,
      maxStacksInMemory: input.maxStacksInMemory ?? MAX_STACKS_PER_METRIC,
    });
    let described: Omit<NormalizedEvidence, "tables">;
    try {
      const scan = await scanDhat(input.chunks, input.limits, points);
      described = dhatEvidence(scan, input.limits.maxEvents, out, SELF, input.checkpoint);
    } finally {
      points.dispose();
    }
    return { ...described, tables: await out.emitStreamed(input.sink), streamed: ["stacks"] };
  },
};
