/**
 * `measurements query` / `query_measurements`: raw benchmark samples of a run or an
 * artifact (or the whole pinned commit), filtered by name prefix, warm-ups excluded unless
 * asked for, in a stable order (run, artifact, measurement id), bounded and paginated with
 * a cursor bound to the commit.
 */
import type { SnapshotHandle } from "../../storage/snapshot.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import type { PageInfo } from "../analysis-result.ts";
import type { EvidenceStatus } from "../../domain/evidence-status.ts";
import {
  measurementGenerations,
  readMeasurements,
  type MeasurementRow,
} from "./read-measurements.ts";

export const MEASUREMENTS_QUERY = "measurements.query";
export const MEASUREMENTS_QUERY_VERSION = "1";

export interface MeasurementsQuery {
  runId?: string;
  artifactId?: string;
  namePrefix?: string;
  includeWarmups?: boolean;
  limit: number;
  cursor?: string | null;
}

export type MeasurementItem = Omit<MeasurementRow, "generation_id">;

export interface MeasurementsPage extends PageInfo {
  schema_version: number;
  query: string;
  query_version: string;
  corpus_commit_id: string;
  evidence: EvidenceStatus;
  generation_ids: string[];
  items: MeasurementItem[];
}

export async function queryMeasurements(
  snapshot: SnapshotHandle,
  q: MeasurementsQuery,
): Promise<MeasurementsPage> {
  const filters = {
    run_id: q.runId ?? null,
    artifact_id: q.artifactId ?? null,
    name_prefix: q.namePrefix ?? null,
    include_warmups: q.includeWarmups ?? false,
  };
  const binding = {
    query: `${MEASUREMENTS_QUERY}@${MEASUREMENTS_QUERY_VERSION}`,
    filters,
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(q.cursor, binding);
  const generations = measurementGenerations(snapshot, {
    runIds: q.runId ? [q.runId] : undefined,
    artifactId: q.artifactId,
  });
  const rows = (await readMeasurements(snapshot, generations))
    .filter(
      (r) =>
        (!q.runId || r.run_id === q.runId) &&
        (!q.namePrefix || r.name.startsWith(q.namePrefix)) &&
        (filters.include_warmups || !r.is_warmup),
    )
    .sort(measurementOrder);
  const page = rows.slice(offset, offset + q.limit).map(({ generation_id: _g, ...item }) => item);
  const end = offset + page.length;
  const evidence: EvidenceStatus =
    generations.length === 0
      ? {
          status: "unavailable",
          reason: "no extracted benchmark measurements for this selection in the pinned commit",
          next_tool: "import_artifact",
        }
      : rows.length === 0
        ? {
            status: "empty",
            reason:
              "measurements exist but none match the filters (warm-ups are excluded unless " +
              "include_warmups)",
          }
        : { status: "available", reason: `${rows.length} measurement(s) match` };
  return {
    schema_version: 1,
    query: MEASUREMENTS_QUERY,
    query_version: MEASUREMENTS_QUERY_VERSION,
    corpus_commit_id: snapshot.commitId,
    evidence,
    generation_ids: generations.map((g) => g.generation_id),
    items: page,
    total: rows.length,
    returned: page.length,
    truncated: end < rows.length,
    next_cursor: end < rows.length ? encodeCursor(binding, end) : null,
  };
}

/** The order every reader of measurements pages in: run, artifact, then measurement id. */
export function measurementOrder(a: MeasurementRow, b: MeasurementRow): number {
  return (
    cmp(a.run_id, b.run_id) ||
    cmp(a.artifact_id, b.artifact_id) ||
    idOrder(a.measurement_id, b.measurement_id)
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** `m12` sorts after `m9`: measurement ids are m<sequence>. */
const idOrder = (a: string, b: string) => Number(a.slice(1)) - Number(b.slice(1)) || cmp(a, b);
