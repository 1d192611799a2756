/** What the `v8-cpuprofile` adapter declares, and its detection, without its parser. */
import type { AdapterDescription } from "../adapter.ts";
import { PROFILE_TABLES } from "../../domain/normalized-evidence.ts";
import { detectCpuProfile } from "./detect.ts";

export const v8CpuProfileDescription: AdapterDescription = {
  name: "v8-cpuprofile",
  version: "1.0.0",
  tables: PROFILE_TABLES,
  artifactKind: "sample_profile",
  mediaType: "application/json",
  detect: detectCpuProfile,
};
