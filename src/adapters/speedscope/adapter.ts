/**
 * The `speedscope` adapter: speedscope's own JSON format (any version: `version` 0.x
 * files and `exporter`-stamped ones), which is also py-spy's `--format speedscope`
 * output: shared frames, evented and sampled profiles, every unit, several profiles (one
 * track each). The file is parsed whole (guarded JSON), the worker having capped its size.
 */
import type { DetectInput, ExtractInput, ProducerAdapter } from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { parseJsonPayload } from "../json-guard.ts";
import { readSpeedscopeFile, SPEEDSCOPE_FORMAT } from "./speedscope-file.ts";
import { speedscopeEvidence } from "./speedscope-evidence.ts";

const SELF = { name: "speedscope", version: "1.0.0" };

export function detectSpeedscope({ head }: DetectInput): number {
  if (!/^\s*\{/.test(head)) return 0;
  if (/"\$schema"\s*:\s*"https?:\/\/(www\.)?speedscope\.app\/file-format-schema\.json"/.test(head))
    return 0.95;
  // Without the schema: a profiles array of typed profiles beside shared frames.
  return /"profiles"\s*:\s*\[\s*\{[^]*?"type"\s*:\s*"(evented|sampled)"/.test(head) &&
    /"shared"\s*:\s*\{\s*"frames"/.test(head)
    ? 0.7
    : 0;
}

export const speedscopeAdapter: ProducerAdapter = {
  ...SELF,
  tables: ["frames", "frame_measurements", "call_edges", "stacks", "trace_events", "tracks"],
  artifactKind: "sample_profile",
  mediaType: "application/json",
  detect: detectSpeedscope,
  extract(input: ExtractInput): NormalizedEvidence {
    const { value } = parseJsonPayload(
      input.bytes,
      input.limits.maxNestingDepth,
      SPEEDSCOPE_FORMAT,
    );
    return speedscopeEvidence(readSpeedscopeFile(value), input.limits.maxEvents, SELF);
  },
};
