/** `flameox import`, `runs list|show|logs`, `artifacts list|show`. */
import { defineCommand } from "citty";
import { checkImportOptions } from "../../application/import-options.ts";
import { commonArgs, execute } from "../context.ts";
import { formatBytes, safeText, table } from "../output.ts";
import { progressBar } from "../progress-bar.ts";
import { renderArtifact, renderRun, renderRunLogs } from "../render-records.ts";
import type { RecordPageRequest } from "../../application/requests/record-requests.ts";
import { numberFlag } from "../request-flags.ts";

// The request schemas load with arktype (~0.2 s): never for `import` (a test holds it to
// that), and for a listing only when it has a flag to check. They validate interpreted,
// as the MCP server does (see validator-mode.ts), so the mode is set before they load.
const interpreted = () => import("../../application/requests/validator-mode.ts");
const recordRequests = () =>
  interpreted().then(() => import("../../application/requests/record-requests.ts"));
const checking = () =>
  interpreted().then(() => import("../../application/requests/request-schema.ts"));

/**
 * A listing's page request; without --limit or --cursor it is the empty request, which the schema
 * accepts.
 */
async function pageRequest(args: { limit?: string; cursor?: string }): Promise<RecordPageRequest> {
  if (args.limit === undefined && args.cursor === undefined) return {};
  const [{ RecordPageRequest }, { checkRequest }] = await Promise.all([
    recordRequests(),
    checking(),
  ]);
  return checkRequest(RecordPageRequest, { limit: numberFlag(args.limit), cursor: args.cursor });
}

const pageArgs = {
  limit: { type: "string", description: "Maximum rows to return" },
  cursor: { type: "string", description: "Opaque cursor from a previous page" },
} as const;

/** The command a person most likely runs next on what was just imported. */
function nextCommand(artifactId: string, tables: Record<string, number>): string[] {
  const id = artifactId.slice(0, 19);
  if ((tables.frame_measurements ?? 0) > 0) return [`next: flameox analyze hotspots ${id}`];
  if ((tables.otel_spans ?? 0) > 0) return [`next: flameox trace transitions ${id}`];
  if ((tables.measurements ?? 0) > 0)
    return [`next: flameox measurements query --artifact-id ${artifactId}`];
  return [`next: flameox artifacts show ${id}   # the analyses this evidence supports`];
}

export const importCommand = defineCommand({
  meta: {
    name: "import",
    description: "Import a profile or trace file (each import is a new run)",
  },
  args: {
    ...commonArgs,
    path: {
      type: "positional",
      required: true,
      description: "File to import (regular files only)",
    },
    kind: { type: "string", description: "Artifact kind (default: detected)" },
    "media-type": { type: "string", description: "Media type (default: detected)" },
    producer: {
      type: "string",
      description: "Producer that wrote the file, e.g. node, chrome, torch.profiler",
    },
    "producer-version": { type: "string", description: "Producer version" },
    sensitivity: { type: "string", description: "normal | internal | sensitive (default normal)" },
    adapter: {
      type: "string",
      description: "Force an adapter by name (the formats are listed below)",
      valueHint: "NAME",
    },
  },
  run: ({ args }) =>
    execute(
      args,
      async (s) => {
        const options = await checkImportOptions({
          kind: args.kind,
          media_type: args["media-type"],
          producer: args.producer,
          producer_version: args["producer-version"],
          sensitivity: args.sensitivity,
          adapter: args.adapter,
        });
        const bar =
          process.stderr.isTTY === true && !args.json ? progressBar(process.stderr) : null;
        return s
          .importArtifact({
            ...options,
            path: args.path,
            onProgress: bar ? (phase, done, total) => bar.update(phase, done, total) : undefined,
          })
          .finally(() => bar?.finish());
      },
      (r) =>
        [
          `run ${r.run_id}`,
          `artifact ${r.artifact_id} (${r.byte_length} ` +
            `bytes${r.deduplicated ? ", already stored" : ""})`,
          `extracted by ${r.extraction.adapter}@${r.extraction.adapter_version} ` +
            `into ${r.extraction.generation_id}`,
          `rows ${Object.entries(r.extraction.tables)
            .map(([t, n]) => `${t}=${n}`)
            .join(" ")}`,
          `commit ${r.extraction.corpus_commit_id}`,
          ...(r.companions ?? []).map(
            (c) =>
              `sidecar ${safeText(c.filename)}: ${c.status}` +
              `${c.artifact_id ? ` as ${c.artifact_id} (${c.rows} rows)` : ""}` +
              `${c.reason ? ` (${safeText(c.reason)})` : ""}`,
          ),
          ...r.extraction.limitations.map((l) => `limitation ${l.code}: ${safeText(l.message)}`),
          ...nextCommand(r.artifact_id, r.extraction.tables),
        ].join("\n"),
    ),
});

export const runsCommand = defineCommand({
  meta: { name: "runs", description: "Runs (imports and executions)" },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "List runs, newest first" },
      args: { ...commonArgs, ...pageArgs },
      run: ({ args }) => {
        // Names go to the text table only: the JSON result is the same model MCP returns.
        let names: Record<string, string[]> = {};
        return execute(
          args,
          async (s) => {
            const page = s.listRuns(await pageRequest(args));
            names = s.runDisplayNames(page.items.map((run) => run.run_id));
            return page;
          },
          (r) =>
            [
              table([
                ["RUN", "TYPE", "CREATED", "CAPTURE", "EXTRACTION", "NAMES"],
                ...r.items.map((run) => [
                  run.run_id,
                  run.run_type,
                  run.created_at,
                  run.capture_status,
                  run.extraction_status,
                  safeText((names[run.run_id] ?? []).join(", ")),
                ]),
              ]),
              r.next_cursor ? `more: --cursor ${r.next_cursor}` : "",
            ]
              .filter(Boolean)
              .join("\n"),
        );
      },
    }),
    show: defineCommand({
      meta: { name: "show", description: "Show one run" },
      args: { ...commonArgs, run_id: { type: "positional", required: true } },
      run: ({ args }) =>
        execute(
          args,
          async (s) => {
            const [{ answerRunLookup, RunLookupRequest }, { checkRequest }] = await Promise.all([
              recordRequests(),
              checking(),
            ]);
            return answerRunLookup(s, checkRequest(RunLookupRequest, { run_id: args.run_id }));
          },
          renderRun,
        ),
    }),
    logs: defineCommand({
      meta: { name: "logs", description: "Print the stdout and stderr a capture stored for a run" },
      args: {
        ...commonArgs,
        run_id: { type: "positional", required: true },
        stream: {
          type: "string",
          description: "stdout or stderr (default: both)",
          valueHint: "STREAM",
        },
        "max-bytes": {
          type: "string",
          description: "Bytes to print per stream (default 1 MiB)",
          valueHint: "N",
        },
      },
      run: ({ args }) =>
        execute(
          args,
          async (s) => {
            const [{ answerRunLogs, RunLogsRequest }, { checkRequest }] = await Promise.all([
              recordRequests(),
              checking(),
            ]);
            return answerRunLogs(
              s,
              checkRequest(RunLogsRequest, {
                run_id: args.run_id,
                stream: args.stream,
                max_bytes: numberFlag(args["max-bytes"]),
              }),
            );
          },
          renderRunLogs,
        ),
    }),
  },
});

export const artifactsCommand = defineCommand({
  meta: { name: "artifacts", description: "Stored native artifacts" },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "List artifacts, newest first" },
      args: { ...commonArgs, ...pageArgs },
      run: ({ args }) => {
        let names: Record<string, string[]> = {};
        return execute(
          args,
          async (s) => {
            const page = s.listArtifacts(await pageRequest(args));
            names = s.artifactDisplayNames(page.items.map((a) => a.artifact_id));
            return page;
          },
          (r) =>
            [
              table([
                ["ARTIFACT", "SIZE", "KINDS", "SENSITIVITY", "REGS", "NAMES"],
                ...r.items.map((a) => [
                  a.artifact_id.slice(0, 19),
                  formatBytes(a.byte_length),
                  a.kinds.join(","),
                  a.effective_sensitivity,
                  String(a.registration_count),
                  safeText((names[a.artifact_id] ?? []).join(", ")),
                ]),
              ]),
              r.next_cursor ? `more: --cursor ${r.next_cursor}` : "",
            ]
              .filter(Boolean)
              .join("\n"),
        );
      },
    }),
    show: defineCommand({
      meta: { name: "show", description: "Show one artifact (metadata only)" },
      args: { ...commonArgs, artifact_id: { type: "positional", required: true } },
      run: ({ args }) =>
        execute(
          args,
          async (s) => {
            const [{ answerArtifactLookup, ArtifactLookupRequest }, { checkRequest }] =
              await Promise.all([recordRequests(), checking()]);
            return answerArtifactLookup(
              s,
              checkRequest(ArtifactLookupRequest, { artifact_id: args.artifact_id }),
            );
          },
          renderArtifact,
        ),
    }),
    get: defineCommand({
      meta: {
        name: "get",
        description:
          "Copy an artifact's native bytes out of the store, verified against its digest " +
          "(example: flameox artifacts get sha256:1a2b3c4d -o trace.json)",
      },
      args: {
        ...commonArgs,
        artifact_id: { type: "positional", required: true },
        output: {
          type: "string",
          alias: "o",
          required: true,
          description: "File to write",
          valueHint: "FILE",
        },
        force: {
          type: "boolean",
          default: false,
          description: "Replace the output file if it exists",
        },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) => s.views().getArtifactBytes(args.artifact_id, args.output, { force: args.force }),
          (r) => `wrote ${safeText(r.path)} (${r.bytes} bytes of ${r.artifact_id})`,
        ),
    }),
  },
});
