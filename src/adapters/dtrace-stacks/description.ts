/** What the `dtrace-stacks` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectDtraceStacks({ head }: DetectInput): number {
  if (/^\s*CPU\s+ID\s+FUNCTION:NAME\s*\r?\n/.test(head) && /\n\s+\S+`\S+/.test(head)) return 0.9;
  // Without the header: indented module`function frames ended by an indented count.
  return /^(?:\s*\r?\n)*(?:[ \t]+\S+`\S+[ \t]*\r?\n)+[ \t]+\d+[ \t]*\r?\n/.test(head) ? 0.8 : 0;
}

export const dtraceStacksDescription: AdapterDescription = {
  name: "dtrace-stacks",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "sample_profile",
  mediaType: "text/x-dtrace-stacks",
  detect: detectDtraceStacks,
};
