/** workspace_status, initialize_workspace, validate_workspace. */
import { answerValidation, ValidationRequest } from "../../application/requests/record-requests.ts";
import { NoArguments } from "../schemas/inputs.ts";
import { InitResult, StatusResult, ValidationReport } from "../schemas/workspace.ts";
import { defineTool, INITIALIZE, READ_ONLY } from "../tool.ts";

export const workspaceStatus = defineTool({
  name: "workspace_status",
  title: "Workspace status",
  description:
    "Identity, corpus HEAD, counts of runs/artifacts/generations, catalog state and warnings " +
    "of the server's workspace. " +
    "Start here: WORKSPACE_NOT_FOUND means the project has no workspace yet; call " +
    "initialize_workspace.",
  annotations: READ_ONLY,
  input: NoArguments,
  result: StatusResult,
  run: async (_args, { session }) => (await session.open()).status(),
  summarize: (r) =>
    [
      `workspace ${r.workspace.workspace_id} at HEAD ${r.corpus_commit_id}`,
      `runs ${r.counts.runs}, artifacts ${r.counts.artifacts}, ` +
        `generations ${r.counts.generations}, quarantined ${r.counts.quarantined}; ` +
        `catalog ${r.catalog.in_sync ? "in sync" : "behind HEAD"}`,
      `analysis cache ` +
        mib(r.analysis_cache.parts.bytes + r.analysis_cache.engine.bytes) +
        ` of ${mib(r.analysis_cache.budget_bytes)} MiB: ${r.analysis_cache.parts.parts} ` +
        `parts, engine ` +
        (r.analysis_cache.engine.open
          ? `open with ${r.analysis_cache.engine.tables} tables`
          : "closed"),
      ...r.warnings.map((w) => `warning: ${w}`),
    ].join("\n"),
});

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

export const initializeWorkspace = defineTool({
  name: "initialize_workspace",
  title: "Initialize workspace",
  description:
    "Creates .diagnostics/ in the server's fixed project root. Idempotent: an existing " +
    "workspace is reported, never replaced. " +
    "It takes no path; the root cannot be switched.",
  annotations: INITIALIZE,
  input: NoArguments,
  result: InitResult,
  run: (_args, { session }) => session.initialize(),
  summarize: (r) =>
    `${r.created ? "Initialized" : "Already initialized:"} workspace ${r.identity.workspace_id}`,
});

export const validateWorkspace = defineTool({
  name: "validate_workspace",
  title: "Validate workspace",
  description:
    "Checks workspace integrity: identity, control plane, corpus HEAD and commit digests, " +
    "generation manifests, evidence files and catalog. " +
    'mode "full" also rehashes every artifact and evidence file. Read-only: it never repairs.',
  annotations: READ_ONLY,
  input: ValidationRequest,
  result: ValidationReport,
  run: async (request, { session }) => answerValidation(await session.open(), request),
  summarize: (r) => {
    const failed = r.checks.filter((c) => c.status === "failed").map((c) => c.check);
    return (
      `validation (${r.level}): ${r.ok ? "passed" : "FAILED"}, ${r.checks.length} ` +
      `checks${failed.length > 0 ? `; failed: ${failed.slice(0, 5).join(", ")}` : ""}`
    );
  },
});
