/**
 * The reference implementation of the `gecko` adapter: the whole payload through guarded
 * JSON.parse, every thread read from the parsed tree into arrays, then folded into
 * evidence. Production streams the file through the WASM scanner
 * (src/adapters/gecko/adapter.ts); the equivalence tests run both and require the same
 * tables, limitations, summary and error codes.
 */
import type { ExtractInput } from "../../../src/adapters/adapter.ts";
import { described, type ReferenceAdapter } from "../adapter-harness.ts";
import { geckoAdapter } from "../../../src/adapters/gecko/adapter.ts";
import { parseJsonPayload } from "../../../src/adapters/json-guard.ts";
import type { NormalizedEvidence } from "../../../src/domain/normalized-evidence.ts";
import { geckoEvidence } from "./gecko-evidence.ts";
import { GECKO_FORMAT, readGeckoProfile } from "./gecko-profile.ts";

const SELF = { name: geckoAdapter.name, version: geckoAdapter.version };

/** The production adapter with the reference `extract` (and no streaming path). */
export const geckoReference: ReferenceAdapter = {
  ...described(geckoAdapter),
  extract(input: ExtractInput): NormalizedEvidence {
    const { value } = parseJsonPayload(input.bytes, input.limits.maxNestingDepth, GECKO_FORMAT);
    return geckoEvidence(readGeckoProfile(value), input.limits.maxEvents, SELF);
  },
};
