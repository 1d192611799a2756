/** What the `coverage-json` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectCoverageJson({ head }: DetectInput): number {
  const text = head.replace(/^\uFEFF/, "").trimStart();
  if (!text.startsWith("{")) return 0;
  // coverage.py writes "meta" first, with keys no other format combines.
  return /^\{\s*"meta"\s*:\s*\{[^{}]*"(?:branch_coverage|show_contexts)"\s*:/.test(text) &&
    /"files"\s*:\s*\{/.test(text)
    ? 0.95
    : 0;
}

export const coverageJsonDescription: AdapterDescription = {
  name: "coverage-json",
  version: "1.0.0",
  tables: ["coverage_lines"],
  artifactKind: "execution_coverage",
  mediaType: "application/json",
  detect: detectCoverageJson,
};
