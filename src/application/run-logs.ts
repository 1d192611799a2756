/**
 * What a capture printed: its stdout and stderr are stored as `process_output` artifacts
 * registered to the run (see capture/register-outputs.ts). This reads them back, up to a
 * bound, so a failed capture can be understood without digging in the store.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { FlameoxError } from "../domain/errors.ts";
import type { Workspace } from "../storage/workspace.ts";
import { artifactPayloadPath } from "../storage/workspace-paths.ts";

export interface RunLogStream {
  role: string;
  artifact_id: string;
  byte_length: number;
  /** The first `max_bytes` of the stream, decoded as UTF-8. */
  text: string;
  truncated: boolean;
}

export interface RunLogs {
  run_id: string;
  streams: RunLogStream[];
}

export const DEFAULT_LOG_BYTES = 1 << 20;

function readHead(path: string, maxBytes: number): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const buffer = new Uint8Array(maxBytes);
    let done = 0;
    while (done < maxBytes) {
      const n = readSync(fd, buffer, done, maxBytes - done, null);
      if (n === 0) break;
      done += n;
    }
    return buffer.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

export function runLogs(
  ws: Workspace,
  runId: string,
  options: { stream?: string; maxBytes?: number } = {},
): RunLogs {
  ws.runs.get(runId); // RUN_NOT_FOUND for an unknown run
  if (options.stream !== undefined && options.stream !== "stdout" && options.stream !== "stderr") {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected --stream to be stdout or stderr but found ${JSON.stringify(options.stream)}`,
      { details: { field: "stream" } },
    );
  }
  const maxBytes = options.maxBytes ?? DEFAULT_LOG_BYTES;
  const streams = ws.artifacts
    .registrationsOfRun(runId)
    .filter(
      (r) =>
        r.kind === "process_output" && (options.stream === undefined || r.role === options.stream),
    )
    .map((r): RunLogStream => {
      const artifact = ws.artifacts.get(r.artifact_id);
      const bytes = readHead(
        artifactPayloadPath(ws.paths, r.artifact_id.replace(/^sha256:/, "")),
        Math.min(maxBytes, artifact.byte_length),
      );
      return {
        role: r.role,
        artifact_id: r.artifact_id,
        byte_length: artifact.byte_length,
        text: new TextDecoder().decode(bytes),
        truncated: artifact.byte_length > bytes.length,
      };
    });
  return { run_id: runId, streams };
}
