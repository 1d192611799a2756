/**
 * The reference implementation of the `speedscope` adapter: the whole payload through
 * guarded JSON.parse (speedscope-file.ts), one object per sample and event, every rule
 * written out over them (speedscope-evidence.ts). Production scans the document with the
 * WASM JSON scanner and keeps samples and events as spooled records
 * (src/adapters/speedscope/); the equivalence tests run both and require the same tables,
 * summary, limitations and error codes.
 */
import type { ExtractInput } from "../../../src/adapters/adapter.ts";
import { described, type ReferenceAdapter } from "../adapter-harness.ts";
import { parseJsonPayload } from "../../../src/adapters/json-guard.ts";
import { speedscopeAdapter } from "../../../src/adapters/speedscope/adapter.ts";
import type { NormalizedEvidence } from "../../../src/domain/normalized-evidence.ts";
import { speedscopeEvidence } from "./speedscope-evidence.ts";
import { readSpeedscopeFile, SPEEDSCOPE_FORMAT } from "./speedscope-file.ts";

/** The production adapter's description with the reference `extract`. */
export const speedscopeReference: ReferenceAdapter = {
  ...described(speedscopeAdapter),
  extract(input: ExtractInput): NormalizedEvidence {
    const { value } = parseJsonPayload(
      input.bytes,
      input.limits.maxNestingDepth,
      SPEEDSCOPE_FORMAT,
    );
    return speedscopeEvidence(readSpeedscopeFile(value), input.limits.maxEvents, {
      name: speedscopeAdapter.name,
      version: speedscopeAdapter.version,
    });
  },
};
