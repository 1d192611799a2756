/** What the `pprof-legacy` adapter declares, and its detection, without its readers. */
import type { AdapterDescription } from "../adapter.ts";
import { detectPprofLegacy } from "./detect-legacy.ts";

export const pprofLegacyDescription: AdapterDescription = {
  name: "pprof-legacy",
  version: "1.1.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "sample_profile",
  mediaType: "application/octet-stream",
  detect: detectPprofLegacy,
};
