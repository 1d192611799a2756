/** What the `simpleperf-proto` adapter declares, and its detection, without its parser. */
import type { AdapterDescription } from "../adapter.ts";
import { detectSimpleperfProto } from "./detect.ts";

export const simpleperfProtoDescription: AdapterDescription = {
  name: "simpleperf-proto",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "sample_profile",
  mediaType: "application/x-simpleperf-report-sample",
  detect: detectSimpleperfProto,
};
