/**
 * Resolves what an analysis is about: a run id, an artifact id (`sha256:<hex>`, or a
 * unique hex prefix of at least 8 characters) into the generations of a pinned snapshot.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { CommitEntry } from "../storage/corpus-records.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace } from "../storage/workspace.ts";

export interface Subject {
  type: "run" | "artifact";
  id: string;
  generations: CommitEntry[];
  runIds: string[];
  artifactIds: string[];
}

export function resolveSubject(
  ws: Workspace,
  snapshot: SnapshotHandle,
  reference: string,
): Subject {
  const ref = reference.trim();
  if (ref.startsWith("run_")) {
    const run = ws.runs.get(ref);
    const generations = latestPerExtractor(snapshot.generations({ runId: run.run_id }));
    return {
      type: "run",
      id: run.run_id,
      generations,
      runIds: [run.run_id],
      artifactIds: run.artifact_ids,
    };
  }
  const artifactId = resolveArtifactId(ws, ref);
  const generations = latestPerExtractor(snapshot.generations({ artifactId }));
  return {
    type: "artifact",
    id: artifactId,
    generations,
    runIds: [...new Set(generations.flatMap((g) => g.run_ids))],
    artifactIds: [artifactId],
  };
}

function resolveArtifactId(ws: Workspace, ref: string): string {
  const hex = ref.startsWith("sha256:") ? ref.slice(7) : ref;
  if (!/^[0-9a-f]{8,64}$/.test(hex)) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Cannot resolve ${JSON.stringify(ref)}: expected a run id (run_…) or an artifact id ` +
        `(sha256:…)`,
      {
        details: { field: "run_or_artifact" },
      },
    );
  }
  if (hex.length === 64) {
    ws.artifacts.get(`sha256:${hex}`);
    return `sha256:${hex}`;
  }
  const matches = ws.control.db
    .query("SELECT artifact_id FROM artifacts WHERE artifact_id LIKE ? LIMIT 2")
    .all(`sha256:${hex}%`) as { artifact_id: string }[];
  if (matches.length === 0)
    throw new FlameoxError(
      "ARTIFACT_NOT_FOUND",
      `Cannot find an artifact whose id starts with sha256:${hex}`,
    );
  if (matches.length > 1)
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Artifact prefix sha256:${hex} is ambiguous; give more characters`,
    );
  return matches[0]!.artifact_id;
}

/**
 * Identical bytes imported twice are one artifact with two extractions. Evidence about
 * the artifact is the newest generation of each extractor, never the sum of both, or
 * every re-import would double the artifact's totals.
 */
function latestPerExtractor(generations: CommitEntry[]): CommitEntry[] {
  const latest = new Map<string, CommitEntry>();
  for (const g of generations) latest.set(`${g.artifact_ids.join(",")}|${g.extractor}`, g);
  return [...latest.values()];
}
