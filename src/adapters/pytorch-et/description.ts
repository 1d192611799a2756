/** What the `pytorch-et` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectPytorchEt({ head }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{") || !/"nodes"\s*:\s*\[/.test(text)) return 0;
  if (text.includes("[pytorch|profiler|execution_trace|")) return 0.95;
  return /"schema"\s*:\s*"1\.\d/.test(text) && /"(ctrl_deps|rf_id|op_schema)"\s*:/.test(text)
    ? 0.9
    : 0;
}

export const pytorchEtDescription: AdapterDescription = {
  name: "pytorch-et",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "execution_trace",
  mediaType: "application/json",
  detect: detectPytorchEt,
};
