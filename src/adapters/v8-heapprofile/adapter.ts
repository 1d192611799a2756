/**
 * The `v8-heapprofile` adapter: `.heapprofile` files from `node --heap-prof` and Chrome
 * DevTools' sampling heap profiler, as `inuse_space` (bytes) frame measurements, call
 * edges and stacks over the same V8 frame identities as CPU profiles.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import { v8HeapProfileDescription } from "./description.ts";
import { heapEvidence } from "./normalize-heap.ts";
import { scanHeapProfile } from "./scan-heap.ts";

const SELF = { name: v8HeapProfileDescription.name, version: v8HeapProfileDescription.version };

export const v8HeapProfileAdapter: ProducerAdapter = {
  ...v8HeapProfileDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    return {
      ...heapEvidence(await scanHeapProfile(input.chunks, input.limits), input.limits, SELF),
      streamed: [],
    };
  },
};
