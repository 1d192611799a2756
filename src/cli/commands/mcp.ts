/**
 * `flameox mcp serve` (the stdio server) and `flameox mcp inspect` (what a client sees).
 * The MCP modules load only when one of these runs, so other commands never pay for the SDK.
 */
import { defineCommand } from "citty";
import { setExitCode } from "../context.ts";
import { printError, printResult } from "../output.ts";
import { parseToolGroups, TOOL_GROUP_NAMES } from "../../mcp/tool-groups.ts";

export const mcpCommand = defineCommand({
  meta: { name: "mcp", description: "The MCP stdio server over the same services as the CLI" },
  subCommands: {
    serve: defineCommand({
      meta: {
        name: "serve",
        description:
          "Serve MCP over stdio for one project root (stdout carries protocol messages only)",
      },
      args: {
        "project-root": {
          type: "string",
          required: true,
          description: "Project root; fixed for the server's lifetime",
          valueHint: "DIR",
        },
        init: {
          type: "boolean",
          default: false,
          description: "Create the workspace at start if it is missing",
        },
        tools: {
          type: "string",
          description:
            `Tool groups to publish, comma-separated, or all (default: ` +
            `core): ${TOOL_GROUP_NAMES.join(", ")}`,
          valueHint: "GROUPS",
        },
      },
      async run({ args }) {
        try {
          // Checked before the server starts: a typo is an error, not a server with no tools.
          const groups = parseToolGroups(args.tools);
          const { serveStdio } = await import("../../mcp/serve.ts");
          await serveStdio({ projectRoot: args["project-root"], init: args.init, groups });
          setExitCode(0);
        } catch (error) {
          // Never stdout: a client may already be reading it as a protocol stream.
          setExitCode(printError(error, { json: false }));
        }
      },
    }),
    inspect: defineCommand({
      meta: {
        name: "inspect",
        description:
          "Start the server as a stdio client would and print its tools, schemas, " +
          "annotations, instructions and resources",
      },
      args: {
        "project-root": {
          type: "string",
          description: "Project root (default: the current directory)",
          valueHint: "DIR",
        },
        json: { type: "boolean", default: false, description: "Print the full report as JSON" },
        tools: {
          type: "string",
          description: "Tool groups the inspected server publishes, as for serve (default: core)",
          valueHint: "GROUPS",
        },
      },
      async run({ args }) {
        try {
          const groups = parseToolGroups(args.tools);
          const { inspectServer, renderInspect } = await import("../../mcp/inspect.ts");
          const report = await inspectServer(args["project-root"] ?? process.cwd(), groups);
          printResult(report, { json: args.json }, renderInspect as (r: never) => string);
          setExitCode(0);
        } catch (error) {
          setExitCode(printError(error, { json: args.json }));
        }
      },
    }),
  },
});
