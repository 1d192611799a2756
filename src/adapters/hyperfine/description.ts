/** What the `hyperfine` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectHyperfine({ head }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{") || !/"results"\s*:\s*\[/.test(text)) return 0;
  return /"command"\s*:/.test(text) && /"(times|mean)"\s*:/.test(text) ? 0.9 : 0.3;
}

export const hyperfineDescription: AdapterDescription = {
  name: "hyperfine",
  version: "1.1.0",
  tables: ["measurements"],
  artifactKind: "benchmark_samples",
  mediaType: "application/json",
  detect: detectHyperfine,
};
