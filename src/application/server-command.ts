/**
 * How to start `flameox mcp serve` as a child process: the same Bun runtime running the
 * CLI entry, or, inside a `bun build --compile` binary (modules under /$bunfs), the binary
 * itself — the rule parse-worker-command.ts follows for the parse worker.
 */
import { fileURLToPath } from "node:url";

export function serverCommand(
  projectRoot: string,
  options: { tools?: string } = {},
): { command: string; args: string[] } {
  const here = import.meta.url;
  // `tools`: the MCP tool groups to publish (`--tools`), absent for the server's default.
  const serve = [
    "mcp",
    "serve",
    "--project-root",
    projectRoot,
    ...(options.tools ? ["--tools", options.tools] : []),
  ];
  if (here.includes("/$bunfs/") || here.includes("%24bunfs"))
    return { command: process.execPath, args: serve };
  return {
    command: process.execPath,
    args: [fileURLToPath(new URL("../cli/main.ts", here)), ...serve],
  };
}
