/**
 * The `pprof-legacy` adapter: pprof's formats from before profile.proto (binary CPU
 * profiles of gperftools, Go and the Java agent; gperftools text heap profiles; C++
 * contention profiles; Java heapz/contentionz text). Each is read into the `PprofInput`
 * shape the profile.proto path builds and normalized by the same `pprofEvidence`, so
 * frames, measurements, edges and stacks look the same whichever way pprof wrote them.
 * The files are small and line- or record-oriented; they are extracted whole (no
 * `extractStream`, like the benchmark adapters), the worker having already capped the
 * payload's size.
 */
import type { ExtractInput, ProducerAdapter } from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { pprofEvidence } from "../pprof/normalize-pprof.ts";
import { pprofLegacyDescription } from "./description.ts";
import { readLegacyProfile } from "./read-legacy.ts";
import { toPprofInput } from "./to-pprof-input.ts";

const SELF = { name: pprofLegacyDescription.name, version: pprofLegacyDescription.version };

export const pprofLegacyAdapter: ProducerAdapter = {
  ...pprofLegacyDescription,
  extract(input: ExtractInput): NormalizedEvidence {
    const profile = readLegacyProfile(input.bytes, input.limits.maxEvents);
    const evidence = pprofEvidence(toPprofInput(profile), input.limits.maxEvents, SELF);
    return {
      ...evidence,
      limitations: [...evidence.limitations, ...profile.notes],
      summary: {
        ...evidence.summary,
        legacy_form: profile.form,
        mappings: profile.mappings.length,
      },
    };
  },
};
