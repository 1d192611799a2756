/** What the `gbench` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectGbench({ head }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{") || !/"benchmarks"\s*:\s*\[/.test(text)) return 0;
  if (/"machine_info"\s*:/.test(text) || /"runs"\s*:\s*\[/.test(text)) return 0;
  if (/"(real_time|cpu_time|run_type|family_index)"\s*:/.test(text)) return 0.9;
  return /"context"\s*:/.test(text) ? 0.6 : 0;
}

export const gbenchDescription: AdapterDescription = {
  name: "gbench",
  version: "1.0.0",
  tables: ["measurements"],
  artifactKind: "benchmark_samples",
  mediaType: "application/json",
  detect: detectGbench,
};
