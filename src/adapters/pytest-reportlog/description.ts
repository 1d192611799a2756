/** What the `pytest-reportlog` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

const KNOWN_TYPES =
  /"\$report_type"\s*:\s*"(SessionStart|SessionFinish|CollectReport|TestReport|SubTestReport|WarningMessage)"/;

function detectPytestReportlog({ head }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{")) return 0;
  const firstLine = text.slice(0, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n"));
  if (KNOWN_TYPES.test(firstLine)) return 0.95;
  return /"\$report_type"\s*:/.test(firstLine) ? 0.5 : 0;
}

export const pytestReportlogDescription: AdapterDescription = {
  name: "pytest-reportlog",
  version: "1.0.0",
  tables: ["test_results"],
  artifactKind: "test_report",
  mediaType: "application/jsonl",
  detect: detectPytestReportlog,
};
