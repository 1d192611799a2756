/**
 * `flameox mcp serve` (the stdio server) and `flameox mcp inspect` (what a client sees).
 * The MCP modules load only when one of these runs, so other commands never pay for the SDK.
 */
import { defineCommand } from "citty";
import { setExitCode } from "../context.ts";
import { printError, printResult } from "../output.ts";

export const mcpCommand = defineCommand({
  meta: { name: "mcp", description: "The MCP stdio server over the same services as the CLI" },
  subCommands: {
    serve: defineCommand({
      meta: { name: "serve", description: "Serve MCP over stdio for one project root (stdout carries protocol messages only)" },
      args: {
        "project-root": { type: "string", required: true, description: "Project root; fixed for the server's lifetime", valueHint: "DIR" },
        init: { type: "boolean", default: false, description: "Create the workspace at start if it is missing" },
      },
      async run({ args }) {
        try {
          const { serveStdio } = await import("../../mcp/serve.ts");
          await serveStdio({ projectRoot: args["project-root"], init: args.init });
          setExitCode(0);
        } catch (error) {
          // Never stdout: a client may already be reading it as a protocol stream.
          setExitCode(printError(error, { json: false }));
        }
      },
    }),
    inspect: defineCommand({
      meta: { name: "inspect", description: "Start the server as a stdio client would and print its tools, schemas, annotations, instructions and resources" },
      args: {
        "project-root": { type: "string", description: "Project root (default: the current directory)", valueHint: "DIR" },
        json: { type: "boolean", default: false, description: "Print the full report as JSON" },
      },
      async run({ args }) {
        try {
          const { inspectServer, renderInspect } = await import("../../mcp/inspect.ts");
          const report = await inspectServer(args["project-root"] ?? process.cwd());
          printResult(report, { json: args.json }, renderInspect as (r: never) => string);
          setExitCode(0);
        } catch (error) {
          setExitCode(printError(error, { json: args.json }));
        }
      },
    }),
  },
});
