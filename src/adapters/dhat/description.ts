/** What the `dhat` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectDhat({ head }: DetectInput): number {
  return /^\s*\{\s*"dhatFileVersion"\s*:\s*\d/.test(head)
    ? 0.95
    : /"dhatFileVersion"\s*:\s*\d/.test(head) && /"pps"\s*:/.test(head)
      ? 0.85
      : 0;
}

export const dhatDescription: AdapterDescription = {
  name: "dhat",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "memory_profile",
  mediaType: "application/json",
  detect: detectDhat,
};
