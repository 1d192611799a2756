/** What the `callgrind` adapter declares, and its detection, without its parser. */
import type { AdapterDescription } from "../adapter.ts";
import { detectCallgrind } from "./detect.ts";

export const callgrindDescription: AdapterDescription = {
  name: "callgrind",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges"],
  artifactKind: "sample_profile",
  mediaType: "text/x-callgrind",
  detect: detectCallgrind,
};
