/**
 * What an adapter hands back after extracting one artifact: filled evidence tables,
 * the limitations it observed and a small bounded summary. No I/O and no provenance;
 * the publisher adds run, artifact and generation columns.
 */
import {
  EVIDENCE_SCHEMAS,
  EVIDENCE_TABLE_NAMES,
  type EvidenceTableName,
} from "./evidence-schema.ts";
import type { CompanionFile } from "./companion-files.ts";
import type { Limitation } from "./evidence-status.ts";
import { TableBuffer } from "./table-buffer.ts";

export interface NormalizedEvidence {
  /** Adapter name, e.g. `v8-cpuprofile`, `chrome-trace`. */
  adapter: string;
  adapterVersion: string;
  /**
   * Producer that wrote the artifact, when the artifact says so (e.g. `node`, `torch.profiler`).
   */
  producer: string | null;
  producerVersion: string | null;
  tables: Record<EvidenceTableName, TableBuffer>;
  limitations: Limitation[];
  /** Bounded, JSON-safe facts about the artifact (event counts, duration, metrics present). */
  summary: Record<string, string | number | boolean | null>;
  /**
   * Files the artifact declares beside itself, for the import to read through the fence (NVBench
   * sidecars).
   */
  companions?: CompanionFile[];
}

/** The tables of profile and trace evidence (frames, measurements, edges, stacks, events). */
export const PROFILE_TABLES = [
  "frames",
  "frame_measurements",
  "call_edges",
  "stacks",
  "trace_events",
] as const satisfies readonly EvidenceTableName[];
/** What trace formats write: profile tables and the tracks their events name. */
export const TRACE_TABLES = [
  ...PROFILE_TABLES,
  "tracks",
] as const satisfies readonly EvidenceTableName[];

export function emptyTables(): Record<EvidenceTableName, TableBuffer> {
  const entries = EVIDENCE_TABLE_NAMES.map(
    (name) => [name, new TableBuffer(EVIDENCE_SCHEMAS[name])] as const,
  );
  return Object.fromEntries(entries) as Record<EvidenceTableName, TableBuffer>;
}
