/** What the `nsys-sqlite` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";
import { isSqliteHeader } from "../sqlite/sqlite-header.ts";

function detectNsysSqlite({ head }: DetectInput): number {
  if (!isSqliteHeader(head)) return 0;
  return /CREATE TABLE StringIds\b/.test(head) &&
    /CREATE TABLE (?:TARGET_INFO_|ANALYSIS_DETAILS|ThreadNames|PROCESSES)\b/.test(head)
    ? 0.95
    : 0;
}

export const nsysSqliteDescription: AdapterDescription = {
  name: "nsys-sqlite",
  version: "1.0.0",
  tables: ["trace_events", "tracks"],
  artifactKind: "execution_trace",
  mediaType: "application/vnd.sqlite3",
  detect: detectNsysSqlite,
};
