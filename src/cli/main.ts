#!/usr/bin/env bun
/**
 * flameox command line. Parses arguments with citty and calls the application services;
 * it holds no business rules. Exit codes: 0 ok, 1 negative result, 2 invalid arguments,
 * 3 capability unavailable, 4 external process failed, 5 integrity, 6 comparison
 * invalid, 7 lock, 8 cancelled/timeout, 9 refused by policy.
 */
import "./terminal-colour.ts";
import { defineCommand, runCommand, showUsage } from "citty";
import { FLAMEOX_VERSION } from "../domain/version.ts";
import { analyzeCommand, stacksGroup, traceCommand } from "./commands/analysis.ts";
import { artifactsCommand, importCommand, runsCommand } from "./commands/records.ts";
import { catalogCommand, initCommand, statusCommand, validateCommand } from "./commands/workspace.ts";
import { experimentCommand, measurementsCommand, runSetsCommand } from "./commands/study.ts";
import { captureCommand } from "./commands/capture.ts";
import { findingsCommand, hypothesesCommand, investigationsCommand } from "./commands/investigations.ts";
import { capabilitiesCommand, recoverCommand, workloadCommand } from "./commands/workload.ts";
import { exitCode } from "./context.ts";
import { printError } from "./output.ts";

export const main = defineCommand({
  meta: { name: "flameox", version: FLAMEOX_VERSION, description: "Local runtime evidence for coding agents" },
  subCommands: {
    init: initCommand,
    status: statusCommand,
    import: importCommand,
    runs: runsCommand,
    artifacts: artifactsCommand,
    analyze: analyzeCommand,
    stacks: stacksGroup,
    trace: traceCommand,
    validate: validateCommand,
    catalog: catalogCommand,
    measurements: measurementsCommand,
    "run-sets": runSetsCommand,
    experiment: experimentCommand,
    investigations: investigationsCommand,
    hypotheses: hypothesesCommand,
    findings: findingsCommand,
    workload: workloadCommand,
    capture: captureCommand,
    capabilities: capabilitiesCommand,
    recover: recoverCommand,
    mcp: (await import("./commands/mcp.ts")).mcpCommand,
  },
});

export async function runCli(rawArgs: string[]): Promise<number> {
  if (rawArgs[0] === "__parse-worker") {
    const { runParseWorker } = await import("../../workers/parse.ts");
    return runParseWorker(rawArgs[1] ?? "");
  }
  if (rawArgs.length === 0 || rawArgs.includes("--help") || rawArgs.includes("-h")) {
    await showHelp(rawArgs);
    return 0;
  }
  if (rawArgs[0] === "--version" || rawArgs[0] === "-v") {
    process.stdout.write(`${FLAMEOX_VERSION}\n`);
    return 0;
  }
  try {
    await runCommand(main, { rawArgs });
    return exitCode;
  } catch (error) {
    // citty throws for unknown commands and missing arguments.
    const json = rawArgs.includes("--json");
    const { FlameoxError } = await import("../domain/errors.ts");
    const message = error instanceof Error ? error.message : String(error);
    return printError(new FlameoxError("INVALID_ARGUMENTS", message, { remediation: ["Run `flameox --help`"] }), { json });
  }
}

async function showHelp(rawArgs: string[]): Promise<void> {
  // Walk down to the deepest named subcommand so `flameox stacks callers --help` helps with that.
  let cmd = main as Parameters<typeof showUsage>[0];
  let parent: Parameters<typeof showUsage>[1];
  for (const arg of rawArgs) {
    if (arg.startsWith("-")) break;
    const subs = (await (typeof cmd.subCommands === "function" ? cmd.subCommands() : cmd.subCommands)) as Record<string, typeof cmd> | undefined;
    const next = subs?.[arg];
    if (!next) break;
    parent = cmd;
    cmd = next;
  }
  await showUsage(cmd, parent);
}

if (import.meta.main) {
  // Results are written synchronously and completely (see output.ts), so exiting cannot cut them off.
  process.exit(await runCli(process.argv.slice(2)));
}
