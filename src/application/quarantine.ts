/**
 * Quarantine records: an extraction that failed keeps its native artifact and gets a
 * record saying why, with run and adapter provenance. Never deleted automatically.
 */
import { join } from "node:path";
import { nowIso } from "../storage/control-plane.ts";
import { writeFileDurably } from "../storage/durable-file.ts";
import type { Workspace } from "../storage/workspace.ts";

export interface QuarantineInput {
  extractionId: string;
  runId: string;
  artifactId: string;
  adapter: string | null;
  code: string;
  message: string;
  status: "quarantined" | "cancelled";
}

export async function recordQuarantine(ws: Workspace, input: QuarantineInput): Promise<void> {
  const record = {
    quarantine_id: input.extractionId,
    run_id: input.runId,
    artifact_id: input.artifactId,
    adapter: input.adapter,
    code: input.code,
    message: input.message,
    created_at: nowIso(),
    suggestion:
      "The native artifact is kept unchanged; fix the producer or pass --adapter, then " +
      "import again",
  };
  writeFileDurably(
    join(ws.paths.quarantine, `${input.extractionId}.json`),
    JSON.stringify(record, null, 2) + "\n",
  );
  ws.control.withWriteLock(() => {
    ws.control.db
      .query(
        "INSERT INTO quarantine (quarantine_id, run_id, artifact_id, adapter, code, message, " +
          "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        record.quarantine_id,
        record.run_id,
        record.artifact_id,
        record.adapter,
        record.code,
        record.message,
        record.created_at,
      );
    ws.control.db
      .query(
        "UPDATE extractions SET status = ?, error_json = ?, finished_at = ? WHERE " +
          "extraction_id = ?",
      )
      .run(
        input.status,
        JSON.stringify({ code: input.code, message: input.message }),
        record.created_at,
        input.extractionId,
      );
    ws.runs.update(input.runId, {
      extraction_status: input.status,
      error: { code: input.code, message: input.message },
    });
  });
}
