/** `flameox init`, `status`, `validate`, `catalog rebuild|validate`. */
import { defineCommand } from "citty";
import { WorkspaceService } from "../../application/workspace-service.ts";
import { commonArgs, execute, setExitCode } from "../context.ts";
import { printError, printResult, table } from "../output.ts";

export const initCommand = defineCommand({
  meta: { name: "init", description: "Create .diagnostics/ in a project root (idempotent)" },
  args: {
    root: {
      type: "positional",
      required: false,
      description: "Project root (default: the current directory)",
    },
    json: commonArgs.json,
  },
  async run({ args }) {
    try {
      const result = await WorkspaceService.init(args.root ?? process.cwd());
      printResult(
        result,
        { json: args.json },
        (r: typeof result) =>
          `${r.created ? "Initialized" : "Already initialized:"} flameox ` +
          `workspace ${r.identity.workspace_id}`,
      );
      setExitCode(0);
    } catch (error) {
      setExitCode(printError(error, { json: args.json }));
    }
  },
});

export const statusCommand = defineCommand({
  meta: {
    name: "status",
    description: "Workspace identity, corpus HEAD, counts, catalog state and warnings",
  },
  args: commonArgs,
  run: ({ args }) =>
    execute(
      args,
      (s) => s.status(),
      (r) =>
        [
          `workspace ${r.workspace.workspace_id} (schema ${r.workspace.schema_version}, ` +
            `flameox ${r.workspace.flameox_version})`,
          `HEAD ${r.corpus_commit_id}`,
          `runs ${r.counts.runs}  artifacts ${r.counts.artifacts}  ` +
            `registrations ${r.counts.registrations}  generations ${r.counts.generations}  ` +
            `quarantined ${r.counts.quarantined}`,
          `catalog ${r.catalog.in_sync ? "in sync" : "behind HEAD"}`,
          ...r.warnings.map((w) => `warning: ${w}`),
        ].join("\n"),
    ),
});

export const validateCommand = defineCommand({
  meta: {
    name: "validate",
    description: "Check workspace integrity (--full rehashes every artifact and Parquet file)",
  },
  args: {
    ...commonArgs,
    full: { type: "boolean", default: false, description: "Rehash artifacts and evidence files" },
  },
  run: ({ args }) =>
    execute(
      args,
      (s) => s.validate({ full: args.full }),
      (r) =>
        [
          `validation (${r.level}): ${r.ok ? "passed" : "FAILED"}`,
          table(r.checks.map((c) => [c.status, c.check, c.message])),
        ].join("\n"),
      (r) => !r.ok,
    ),
});

export const catalogCommand = defineCommand({
  meta: { name: "catalog", description: "The derived corpus catalog" },
  subCommands: {
    rebuild: defineCommand({
      meta: { name: "rebuild", description: "Rebuild the catalog from corpus HEAD" },
      args: commonArgs,
      run: ({ args }) =>
        execute(
          args,
          (s) => s.catalogRebuild(),
          (r) => `catalog rebuilt at ${r.corpus_head}`,
        ),
    }),
    validate: defineCommand({
      meta: { name: "validate", description: "Compare the catalog with corpus HEAD" },
      args: commonArgs,
      run: ({ args }) =>
        execute(
          args,
          (s) => s.catalogValidate(),
          (r) =>
            r.ok
              ? `catalog matches ${r.corpus_head}`
              : `catalog differs from HEAD: ${r.missing_generations.length} ` +
                `missing, ${r.extra_generations.length} extra`,
          (r) => !r.ok,
        ),
    }),
  },
});
