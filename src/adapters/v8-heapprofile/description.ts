/** What the `v8-heapprofile` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectHeapProfile({ head, displayName }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{")) return 0;
  const named = /\.heapprofile(\.gz)?$/i.test(displayName);
  if (/"head"\s*:\s*\{/.test(text) && text.includes('"selfSize"') && text.includes('"callFrame"'))
    return 0.95;
  return named && /"head"\s*:/.test(text) ? 0.5 : 0;
}

export const v8HeapProfileDescription: AdapterDescription = {
  name: "v8-heapprofile",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "memory_profile",
  mediaType: "application/json",
  detect: detectHeapProfile,
};
