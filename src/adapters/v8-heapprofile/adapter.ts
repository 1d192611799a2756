/**
 * The `v8-heapprofile` adapter: `.heapprofile` files from `node --heap-prof` and Chrome
 * DevTools' sampling heap profiler, as `inuse_space` (bytes) frame measurements, call
 * edges and stacks over the same V8 frame identities as CPU profiles.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import type { DetectInput } from "../adapter.ts";
import { heapEvidence } from "./normalize-heap.ts";
import { scanHeapProfile } from "./scan-heap.ts";

const NAME = "v8-heapprofile";
const VERSION = "1.0.0";
const SELF = { name: NAME, version: VERSION };

export function detectHeapProfile({ head, displayName }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{")) return 0;
  const named = /\.heapprofile(\.gz)?$/i.test(displayName);
  if (/"head"\s*:\s*\{/.test(text) && text.includes('"selfSize"') && text.includes('"callFrame"'))
    return 0.95;
  return named && /"head"\s*:/.test(text) ? 0.5 : 0;
}

export const v8HeapProfileAdapter: ProducerAdapter = {
  name: NAME,
  version: VERSION,
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "memory_profile",
  mediaType: "application/json",
  detect: detectHeapProfile,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    return {
      ...heapEvidence(await scanHeapProfile(input.chunks, input.limits), input.limits, SELF),
      streamed: [],
    };
  },
};
