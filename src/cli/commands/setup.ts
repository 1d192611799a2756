/** `flameox setup`: connect agent clients to the flameox MCP server, and `--rollback`. */
import { homedir } from "node:os";
import { defineCommand } from "citty";
import { FlameoxError } from "../../domain/errors.ts";
import { CLIENT_IDS, type SetupScope } from "../../application/setup/clients.ts";
import {
  applySetup,
  planSetup,
  previewRollback,
  rollbackSetup,
  type SetupPlan,
  verifySetup,
} from "../../application/setup/setup-service.ts";
import { TOOL_GROUP_NAMES, toolsArgument } from "../../mcp/tool-groups.ts";
import { confirm, hasTerminal } from "../confirm.ts";
import { setExitCode } from "../context.ts";
import { printError, printResult, useColor } from "../output.ts";

function colourDiff(diff: string): string {
  if (!useColor()) return diff;
  return diff
    .split("\n")
    .map((l) =>
      l.startsWith("+") && !l.startsWith("+++")
        ? `\u001b[32m${l}\u001b[0m`
        : l.startsWith("-") && !l.startsWith("---")
          ? `\u001b[31m${l}\u001b[0m`
          : l.startsWith("@@")
            ? `\u001b[36m${l}\u001b[0m`
            : l,
    )
    .join("\n");
}

function renderPlan(plan: SetupPlan): string {
  const lines = [
    `flameox setup (${plan.scope} scope) · detected: ${plan.detected.join(", ") || "none"}`,
  ];
  for (const change of plan.changes) {
    lines.push(
      "",
      `${change.client_name}: ` +
        `${change.action === "unchanged" ? "already configured" : change.action} ${change.path}`,
    );
    if (change.diff) lines.push(colourDiff(change.diff.replace(/^Index: .*\n=+\n/, "").trimEnd()));
  }
  return lines.join("\n");
}

async function consent(yes: boolean, question: string): Promise<void> {
  if (yes) return;
  if (!hasTerminal()) {
    throw new FlameoxError(
      "CONFIRMATION_REQUIRED",
      "Nothing was written: confirm on a terminal or pass --yes",
      { remediation: ["Review the change above, then run the same command with --yes"] },
    );
  }
  if (!(await confirm(question)))
    throw new FlameoxError("CONFIRMATION_REQUIRED", "Nothing was written: not confirmed");
}

export const setupCommand = defineCommand({
  meta: {
    name: "setup",
    description:
      "Add the flameox MCP server to Claude Code, Cursor, Codex, VS Code, Gemini CLI or " +
      "OpenCode (shows the diff, backs up, verifies)",
  },
  args: {
    client: {
      type: "string",
      description: `Clients, comma-separated: ${CLIENT_IDS.join(", ")} (default: those detected)`,
      valueHint: "NAMES",
    },
    scope: {
      type: "string",
      description: "project (files in the project) or user (files in your home directory)",
      default: "project",
      valueHint: "project|user",
    },
    project: {
      type: "string",
      description: "Project directory (default: the current directory)",
      valueHint: "DIR",
    },
    home: {
      type: "string",
      description: "Home directory holding user configuration and setup backups (default: $HOME)",
      valueHint: "DIR",
    },
    tools: {
      type: "string",
      description:
        `MCP tool groups the configured server publishes, comma-separated, or all (default: ` +
        `core): ${TOOL_GROUP_NAMES.join(", ")}`,
      valueHint: "GROUPS",
    },
    yes: { type: "boolean", default: false, description: "Apply without asking" },
    "dry-run": { type: "boolean", default: false, description: "Only show the change" },
    verify: {
      type: "boolean",
      default: true,
      description: "Start the configured server and complete MCP initialize (--no-verify skips)",
    },
    rollback: {
      type: "boolean",
      default: false,
      description: "Restore the files the last setup changed, byte for byte",
    },
    force: {
      type: "boolean",
      default: false,
      description: "With --rollback: restore even files edited since setup",
    },
    json: { type: "boolean", default: false, description: "Print the result model as JSON" },
  },
  async run({ args }) {
    const home = args.home ?? homedir();
    try {
      if (args.rollback) {
        const preview = previewRollback(home);
        if (!args.json)
          process.stderr.write(
            [
              `rollback of setup ${preview.backup_id}:`,
              ...preview.restored.map((p) => `  restore ${p}`),
              ...preview.removed.map((p) => `  remove  ${p}`),
            ].join("\n") + "\n",
          );
        if (args["dry-run"]) {
          printResult(preview, { json: args.json }, () => "dry run: nothing changed");
          return setExitCode(0);
        }
        await consent(args.yes, "Restore these files? [y/N] ");
        const result = rollbackSetup(home, { force: args.force });
        printResult(
          result,
          { json: args.json },
          (r: typeof result) =>
            `restored ${r.restored.length} file(s), removed ${r.removed.length} created file(s)`,
        );
        return setExitCode(0);
      }
      const scope = args.scope as SetupScope;
      if (scope !== "project" && scope !== "user")
        throw new FlameoxError(
          "INVALID_ARGUMENTS",
          `Expected --scope to be project or user but found ${JSON.stringify(args.scope)}`,
          { details: { field: "scope" } },
        );
      const clients = args.client
        ?.split(",")
        .map((c) => c.trim())
        .filter(Boolean);
      // Checked here so a typo fails now, not when the client first starts the server.
      const tools = args.tools === undefined ? undefined : toolsArgument(args.tools);
      const plan = planSetup({
        home,
        project: args.project ?? process.cwd(),
        scope,
        clients,
        tools,
      });
      const pending = plan.changes.filter((c) => c.action !== "unchanged");
      if (!args.json) process.stderr.write(renderPlan(plan) + "\n\n");
      if (args["dry-run"]) {
        printResult({ plan }, { json: args.json }, () => "dry run: nothing written");
        return setExitCode(0);
      }
      let applied: ReturnType<typeof applySetup> | null = null;
      if (pending.length > 0) {
        await consent(args.yes, `Write ${pending.length} file(s)? [y/N] `);
        applied = applySetup(plan);
      }
      const verification = args.verify ? await verifySetup(plan) : [];
      const failed = verification.filter((v) => !v.ok);
      const result = {
        plan: { ...plan, changes: plan.changes.map(({ before: _b, after: _a, ...c }) => c) },
        applied,
        verification,
      };
      printResult(result, { json: args.json }, () =>
        [
          applied
            ? `wrote ${applied.written.length} file(s); backup ${applied.backup_id} (undo: ` +
              `flameox setup --rollback)`
            : "nothing to write: already configured",
          ...verification.map((v) =>
            v.ok
              ? `verified ${v.client}: ${v.server} answered initialize in ${v.elapsed_ms} ms`
              : `FAILED ${v.client}: ${v.error}`,
          ),
        ].join("\n"),
      );
      setExitCode(failed.length > 0 ? 4 : 0);
    } catch (error) {
      setExitCode(printError(error, { json: args.json }));
    }
  },
});
