/**
 * The reference implementation of the `v8-cpuprofile` adapter's parse: the whole payload
 * through JSON.parse (parse-cpuprofile.ts), then production's normalizer. Production
 * scans with the WASM JSON scanner on both entry points; the equivalence tests compare
 * it with this, so the scanner's reading of the document is checked independently.
 */
import { described, type ReferenceAdapter } from "../adapter-harness.ts";
import {
  cpuProfileEvidence,
  v8CpuProfileAdapter,
} from "../../../src/adapters/v8-cpuprofile/adapter.ts";
import { parseCpuProfile } from "./parse-cpuprofile.ts";

export const cpuProfileReference: ReferenceAdapter = {
  ...described(v8CpuProfileAdapter),
  extract: (input) => cpuProfileEvidence(parseCpuProfile(input.bytes, input.limits)),
};
