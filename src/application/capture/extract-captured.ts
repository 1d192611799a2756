/**
 * Extraction of captured profile artifacts, through the same use case as imports: one
 * parse worker per artifact, a generation published per success, a quarantine record
 * per failure. A failed extraction does not undo the capture; it is reported.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import { asFlameoxError } from "../../domain/errors.ts";
import type { ExtractionStatus } from "../../domain/records.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { extractArtifact } from "../extract-artifact.ts";
import type { CaptureExtraction, CapturedArtifact } from "./capture-result.ts";

export async function extractCaptured(
  ws: Workspace,
  runId: string,
  extractable: { artifact: CapturedArtifact; extractor: string }[],
  signal?: AbortSignal,
): Promise<{
  extractions: CaptureExtraction[];
  status: ExtractionStatus;
  limitations: Limitation[];
}> {
  const extractions: CaptureExtraction[] = [];
  const limitations: Limitation[] = [];
  for (const { artifact, extractor } of extractable) {
    try {
      const result = await extractArtifact(ws, {
        runId,
        artifactId: artifact.artifact_id,
        registrationId: artifact.registration_id,
        displayName: artifact.display_name,
        adapter: extractor,
        signal,
      });
      extractions.push({
        artifact_id: artifact.artifact_id,
        status: "published",
        adapter: result.adapter,
        generation_id: result.generation_id,
        corpus_commit_id: result.corpus_commit_id,
        tables: result.tables,
        error: null,
      });
      limitations.push(...result.limitations);
      // A capture reads only the files it captured: what an artifact declares beside itself is not
      // fenced in here.
      if (result.companions.length > 0)
        limitations.push({
          code: "sidecar_not_read",
          message:
            `${artifact.display_name} declares ${result.companions.length} sidecar file(s) a ` +
            `capture does not read; import the file from a path to read them`,
          count: result.companions.length,
        });
    } catch (error) {
      const failure = asFlameoxError(error);
      const cancelled = failure.code === "PROCESS_CANCELLED";
      extractions.push({
        artifact_id: artifact.artifact_id,
        status: cancelled ? "cancelled" : "failed",
        adapter: extractor,
        generation_id: null,
        corpus_commit_id: null,
        tables: {},
        error: { code: failure.code, message: failure.message },
      });
      limitations.push({
        code: "extraction_failed",
        message: `${artifact.display_name} was not extracted: ${failure.message}`,
      });
    }
  }
  const status: ExtractionStatus =
    extractions.length === 0
      ? "not_requested"
      : extractions.every((e) => e.status === "published")
        ? "published"
        : extractions.some((e) => e.status === "cancelled")
          ? "cancelled"
          : "quarantined";
  return { extractions, status, limitations };
}
