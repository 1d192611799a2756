/** What the `chrome-trace` adapter declares, and its detection, without its parser. */
import type { AdapterDescription } from "../adapter.ts";
import { TRACE_TABLES } from "../../domain/normalized-evidence.ts";
import { detectChromeTrace } from "./detect.ts";

export const chromeTraceDescription: AdapterDescription = {
  name: "chrome-trace",
  version: "1.0.0",
  tables: TRACE_TABLES,
  artifactKind: "execution_trace",
  mediaType: "application/json",
  detect: detectChromeTrace,
};
