/** What the `perf-script` adapter declares, and its detection, without its parser. */
import type { AdapterDescription } from "../adapter.ts";
import { detectPerfScript } from "./detect.ts";

export const perfScriptDescription: AdapterDescription = {
  name: "perf-script",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "sample_profile",
  mediaType: "text/x-perf-script",
  detect: detectPerfScript,
};
