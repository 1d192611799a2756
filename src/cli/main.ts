#!/usr/bin/env bun
/**
 * flameox command line. Parses arguments with citty and calls the application services;
 * it holds no business rules. Exit codes: 0 ok, 1 negative result, 2 invalid arguments,
 * 3 capability unavailable, 4 external process failed, 5 integrity, 6 comparison
 * invalid, 7 lock, 8 cancelled/timeout, 9 refused by policy.
 */
import "./terminal-colour.ts";
import { type CommandDef, defineCommand, runCommand } from "citty";
import { FLAMEOX_VERSION } from "../domain/version.ts";
import { exitCode } from "./context.ts";
import { printError } from "./output.ts";

// Commands load when used: each pulls in its services and their schemas (arktype alone
// takes ~0.4 s to start), and a parse worker, started through this entry for every
// import, needs none of them.
type Commands = Record<string, CommandDef<any>>;
const lazy = (load: () => Promise<Commands>, name: string) => () => load().then((m) => m[name]!);
const analysis = () => import("./commands/analysis.ts") as Promise<Commands>;
const records = () => import("./commands/records.ts") as Promise<Commands>;
const workspace = () => import("./commands/workspace.ts") as Promise<Commands>;
const study = () => import("./commands/study.ts") as Promise<Commands>;
const capture = () => import("./commands/capture.ts") as Promise<Commands>;
const investigations = () => import("./commands/investigations.ts") as Promise<Commands>;
const workload = () => import("./commands/workload.ts") as Promise<Commands>;
const mcp = () => import("./commands/mcp.ts") as Promise<Commands>;
const pictures = () => import("./commands/pictures.ts") as Promise<Commands>;
const setup = () => import("./commands/setup.ts") as Promise<Commands>;

export const main = defineCommand({
  meta: { name: "flameox", version: FLAMEOX_VERSION, description: "Local runtime evidence for coding agents" },
  subCommands: {
    init: lazy(workspace, "initCommand"),
    status: lazy(workspace, "statusCommand"),
    import: lazy(records, "importCommand"),
    runs: lazy(records, "runsCommand"),
    artifacts: lazy(records, "artifactsCommand"),
    analyze: lazy(analysis, "analyzeCommand"),
    stacks: lazy(analysis, "stacksGroup"),
    trace: lazy(analysis, "traceCommand"),
    flamegraph: lazy(pictures, "flamegraphCommand"),
    diff: lazy(pictures, "diffCommand"),
    export: lazy(pictures, "exportCommand"),
    open: lazy(pictures, "openCommand"),
    validate: lazy(workspace, "validateCommand"),
    catalog: lazy(workspace, "catalogCommand"),
    measurements: lazy(study, "measurementsCommand"),
    "run-sets": lazy(study, "runSetsCommand"),
    experiment: lazy(study, "experimentCommand"),
    investigations: lazy(investigations, "investigationsCommand"),
    hypotheses: lazy(investigations, "hypothesesCommand"),
    findings: lazy(investigations, "findingsCommand"),
    workload: lazy(workload, "workloadCommand"),
    capture: lazy(capture, "captureCommand"),
    capabilities: lazy(workload, "capabilitiesCommand"),
    recover: lazy(workload, "recoverCommand"),
    mcp: lazy(mcp, "mcpCommand"),
    setup: lazy(setup, "setupCommand"),
  },
});

export async function runCli(rawArgs: string[]): Promise<number> {
  if (rawArgs[0] === "__parse-worker") {
    const { runParseWorker } = await import("../../workers/parse.ts");
    return runParseWorker(rawArgs[1] ?? "");
  }
  if (rawArgs.length === 0 || rawArgs.includes("--help") || rawArgs.includes("-h")) {
    const { showHelp } = await import("./help.ts");
    await showHelp(main, rawArgs);
    return 0;
  }
  if (rawArgs[0] === "--version" || rawArgs[0] === "-v") {
    process.stdout.write(`${FLAMEOX_VERSION}\n`);
    return 0;
  }
  try {
    const { checkArguments } = await import("./arg-check.ts");
    await checkArguments(main, rawArgs);
    await runCommand(main, { rawArgs });
    return exitCode;
  } catch (error) {
    // citty throws for unknown commands and missing arguments; arg-check throws typed errors.
    const json = rawArgs.includes("--json");
    const { FlameoxError } = await import("../domain/errors.ts");
    if (error instanceof FlameoxError) return printError(error, { json });
    const message = error instanceof Error ? error.message : String(error);
    return printError(new FlameoxError("INVALID_ARGUMENTS", message, { remediation: ["Run `flameox --help`"] }), { json });
  }
}

if (import.meta.main) {
  // Results are written synchronously and completely (see output.ts), so exiting cannot cut them off.
  process.exit(await runCli(process.argv.slice(2)));
}
