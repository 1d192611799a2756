/**
 * What evidence the pinned corpus commit holds about a run, an artifact or one
 * generation: the generations that cover it, their tables and row counts, extractor
 * identity and limitations, and an evidence status that says why nothing is there when
 * nothing is (an empty list is never proof of absence). Metadata only: no evidence rows,
 * no artifact bytes, no storage paths.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { EvidenceStatus, Limitation } from "../domain/evidence-status.ts";
import type { RunRecord } from "../domain/records.ts";
import { resolveSubject } from "../analysis/subject.ts";
import type { CommitEntry } from "../storage/corpus-records.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace } from "../storage/workspace.ts";

export const EVIDENCE_REF_TYPES = ["run", "artifact", "generation"] as const;
export type EvidenceRefType = (typeof EVIDENCE_REF_TYPES)[number];

/** At most this many generations are described; the rest are counted. */
const MAX_GENERATIONS = 50;
const MAX_LIMITATIONS = 100;
const GENERATION_ID = /^gen_[0-9a-f-]{36}$/;

export interface GenerationEvidence {
  generation_id: string;
  created_at: string;
  extractor: { name: string; version: string };
  run_ids: string[];
  artifact_ids: string[];
  tables: { table: string; rows: number; bytes: number; schema_id: string }[];
  limitations: Limitation[];
  summary: Record<string, unknown>;
}

export interface EvidenceResult {
  ref: { type: EvidenceRefType; id: string };
  corpus_commit_id: string;
  evidence: EvidenceStatus;
  generations: GenerationEvidence[];
  generations_total: number;
  generations_truncated: boolean;
  limitations: Limitation[];
  resource_uri: string;
}

export function getEvidence(
  ws: Workspace,
  snapshot: SnapshotHandle,
  refType: EvidenceRefType,
  refId: string,
): EvidenceResult {
  const { id, entries, missing } = locate(ws, snapshot, refType, refId.trim());
  const generations = entries.slice(0, MAX_GENERATIONS).map((entry) => describe(snapshot, entry));
  const limitations = generations.flatMap((g) => g.limitations).slice(0, MAX_LIMITATIONS);
  const evidence: EvidenceStatus =
    entries.length === 0
      ? missing
      : limitations.length > 0
        ? {
            status: "partial",
            reason:
              `${entries.length} generation(s) with ${limitations.length} limitation(s); see ` +
              `limitations`,
          }
        : { status: "available", reason: `${entries.length} generation(s) in the pinned commit` };
  return {
    ref: { type: refType, id },
    corpus_commit_id: snapshot.commitId,
    evidence,
    generations,
    generations_total: entries.length,
    generations_truncated: entries.length > MAX_GENERATIONS,
    limitations,
    resource_uri: `flameox://evidence/${refType}/${encodeURIComponent(id)}`,
  };
}

interface Located {
  id: string;
  entries: CommitEntry[];
  /** The status to report when no generation covers the reference. */
  missing: EvidenceStatus;
}

function locate(
  ws: Workspace,
  snapshot: SnapshotHandle,
  refType: EvidenceRefType,
  refId: string,
): Located {
  if (refType === "generation") {
    if (!GENERATION_ID.test(refId)) {
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        `Expected ref_id to be a generation id (gen_…) but ` +
          `found ${JSON.stringify(refId.slice(0, 80))}`,
        { details: { field: "ref_id" } },
      );
    }
    const entry = snapshot.commit.generations.find((g) => g.generation_id === refId);
    return {
      id: refId,
      entries: entry ? [entry] : [],
      missing: {
        status: "unavailable",
        reason:
          "this generation is not in the pinned commit: it was superseded, never published, " +
          "or the id is wrong",
        next_tool: "list_runs",
      },
    };
  }
  const looksLikeRun = refId.startsWith("run_");
  if (looksLikeRun !== (refType === "run")) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected ref_id to be ` +
        `${refType === "run" ? "a run id (run_…)" : "an artifact id (sha256:…)"} but ` +
        `found ${JSON.stringify(refId.slice(0, 80))}`,
      {
        details: { field: "ref_id" },
      },
    );
  }
  const subject = resolveSubject(ws, snapshot, refId);
  const missing: EvidenceStatus =
    subject.type === "run"
      ? missingForRun(ws.runs.get(subject.id))
      : {
          status: "unavailable",
          reason: "no generation covers this artifact in the pinned commit",
          next_tool: "import_artifact",
        };
  return { id: subject.id, entries: subject.generations, missing };
}

function missingForRun(run: RunRecord): EvidenceStatus {
  const failure = run.error ? ` (${run.error.code})` : "";
  switch (run.extraction_status) {
    case "pending":
    case "running":
      return {
        status: "unknown",
        reason: `extraction is ${run.extraction_status}; evidence is not published yet`,
        next_tool: "get_run",
        next_arguments: { run_id: run.run_id },
      };
    case "failed":
    case "quarantined":
    case "cancelled":
      return {
        status: "unavailable",
        reason: `extraction ${run.extraction_status}${failure}; no evidence was published`,
        next_tool: "get_run",
        next_arguments: { run_id: run.run_id },
      };
    case "published":
      return {
        status: "unavailable",
        reason: "the run's generations are not in the pinned commit (superseded)",
        next_tool: "get_run",
        next_arguments: { run_id: run.run_id },
      };
    default:
      return {
        status: "unavailable",
        reason: `no extraction was recorded for this run (capture ${run.capture_status}${failure})`,
        next_tool: "import_artifact",
      };
  }
}

function describe(snapshot: SnapshotHandle, entry: CommitEntry): GenerationEvidence {
  const manifest = snapshot.manifest(entry);
  return {
    generation_id: entry.generation_id,
    created_at: manifest.created_at,
    extractor: manifest.extractor,
    run_ids: entry.run_ids,
    artifact_ids: entry.artifact_ids,
    // Manifest paths are relative to .diagnostics/, but results carry no storage paths at all.
    tables: manifest.files.map((f) => ({
      table: f.table,
      rows: f.rows,
      bytes: f.bytes,
      schema_id: f.schema_id,
    })),
    limitations: manifest.limitations,
    summary: manifest.summary,
  };
}
