/**
 * Resource templates: `flameox://runs/{run_id}`, `flameox://artifacts/{artifact_id}` and
 * `flameox://evidence/{ref_type}/{ref_id}`, served as JSON metadata (never bytes or host
 * paths). Ids are percent-encoded: artifact ids contain a colon.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { FlameoxError } from "../domain/errors.ts";
import { boundStrings, byteSize, errorPayload, MAX_RESULT_BYTES } from "./envelope.ts";
import type { WorkspaceSession } from "./workspace-session.ts";

/** JSON-RPC code MCP assigns to "resource not found". */
const RESOURCE_NOT_FOUND = -32002;

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: "flameox://runs/{run_id}",
    name: "run",
    title: "Run",
    description: "One run's record, as get_run returns it",
    mimeType: "application/json",
  },
  {
    uriTemplate: "flameox://artifacts/{artifact_id}",
    name: "artifact",
    title: "Artifact",
    description:
      "One artifact's metadata (never its bytes), as get_artifact returns it; the id is " +
      "percent-encoded",
    mimeType: "application/json",
  },
  {
    uriTemplate: "flameox://evidence/{ref_type}/{ref_id}",
    name: "evidence",
    title: "Evidence",
    description:
      "The evidence inventory of a run, artifact or generation, as get_evidence returns it",
    mimeType: "application/json",
  },
] as const;

const PATTERNS: [RegExp, (session: WorkspaceSession, ids: string[]) => Promise<unknown>][] = [
  [/^flameox:\/\/runs\/([^/]+)$/, async (s, [id]) => (await s.open()).getRun(id!)],
  [/^flameox:\/\/artifacts\/([^/]+)$/, async (s, [id]) => (await s.open()).getArtifact(id!)],
  [
    /^flameox:\/\/evidence\/(run|artifact|generation)\/([^/]+)$/,
    async (s, [type, id]) => (await s.open()).getEvidence(type as "run", id!),
  ],
];

export async function readResource(
  session: WorkspaceSession,
  uri: string,
): Promise<{ contents: { uri: string; mimeType: string; text: string }[] }> {
  for (const [pattern, read] of PATTERNS) {
    const match = pattern.exec(uri);
    if (!match) continue;
    let ids: string[];
    try {
      ids = match.slice(1).map((part) => decodeURIComponent(part));
    } catch {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Cannot read ${uri}: the id is not valid percent-encoding`,
      );
    }
    try {
      const value = boundStrings(await read(session, ids));
      if (byteSize(value) > MAX_RESULT_BYTES)
        throw new FlameoxError(
          "QUERY_BUDGET_EXCEEDED",
          `Resource ${uri} is over the ${MAX_RESULT_BYTES}-byte budget`,
        );
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(value) }] };
    } catch (error) {
      throw asProtocolError(uri, error, session);
    }
  }
  throw new McpError(
    RESOURCE_NOT_FOUND,
    `Cannot read ${uri}: it matches no flameox resource template`,
    { uri },
  );
}

function asProtocolError(uri: string, error: unknown, session: WorkspaceSession): McpError {
  const payload = errorPayload(error, session.hiddenPaths());
  const notFound = payload.code === "RUN_NOT_FOUND" || payload.code === "ARTIFACT_NOT_FOUND";
  const code = notFound
    ? RESOURCE_NOT_FOUND
    : payload.code === "INVALID_ARGUMENTS"
      ? ErrorCode.InvalidParams
      : ErrorCode.InternalError;
  return new McpError(code, `Cannot read ${uri}: ${payload.message}`, { uri, error: payload });
}
