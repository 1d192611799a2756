/**
 * The reference implementation of the `v8-heapprofile` adapter's parse: JSON.parse and an
 * explicit walk of the `head` tree (parse-heap.ts), then production's normalizer.
 * Production scans with the WASM JSON scanner on both entry points; the equivalence tests
 * compare it with this.
 */
import { described, type ReferenceAdapter } from "../adapter-harness.ts";
import { v8HeapProfileAdapter } from "../../../src/adapters/v8-heapprofile/adapter.ts";
import { heapEvidence } from "../../../src/adapters/v8-heapprofile/normalize-heap.ts";
import { parseHeapProfile } from "./parse-heap.ts";

export const heapProfileReference: ReferenceAdapter = {
  ...described(v8HeapProfileAdapter),
  extract: (input) =>
    heapEvidence(parseHeapProfile(input.bytes, input.limits), input.limits, {
      name: v8HeapProfileAdapter.name,
      version: v8HeapProfileAdapter.version,
    }),
};
