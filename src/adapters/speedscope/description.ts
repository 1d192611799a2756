/** What the `speedscope` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectSpeedscope({ head }: DetectInput): number {
  if (!/^\s*\{/.test(head)) return 0;
  if (/"\$schema"\s*:\s*"https?:\/\/(www\.)?speedscope\.app\/file-format-schema\.json"/.test(head))
    return 0.95;
  // Without the schema: a profiles array of typed profiles beside shared frames.
  return /"profiles"\s*:\s*\[\s*\{[^]*?"type"\s*:\s*"(evented|sampled)"/.test(head) &&
    /"shared"\s*:\s*\{\s*"frames"/.test(head)
    ? 0.7
    : 0;
}

export const speedscopeDescription: AdapterDescription = {
  name: "speedscope",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks", "trace_events", "tracks"],
  artifactKind: "sample_profile",
  mediaType: "application/json",
  detect: detectSpeedscope,
};
