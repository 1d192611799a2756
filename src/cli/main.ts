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
import { exitCode } from "./exit-code.ts";
import { printError } from "./output.ts";

// Commands load when used: each pulls in its services and their schemas (arktype alone
// takes ~0.25 s to start), and a parse worker, started through this entry for every
// import, needs none of them. Descriptions are repeated here so the top-level usage can
// list every command without loading any (a test keeps each equal to the first line of
// the command's own description).
// biome-ignore lint/suspicious/noExplicitAny: citty's command types are generic
type Commands = Record<string, CommandDef<any>>;
interface CommandEntry {
  // biome-ignore lint/suspicious/noExplicitAny: citty's command types are generic
  load: () => Promise<CommandDef<any>>;
  description: string;
}
const from =
  (load: () => Promise<Commands>) =>
  (name: string, description: string): CommandEntry => ({
    load: () => load().then((m) => m[name]!),
    description,
  });
// Commands that check requests validate as the MCP server does, interpreted, so that a
// request refused through either door reads the same (see validator-mode.ts); the mode is
// set before the command's module loads arktype. records.ts sets it itself, later, since
// `import` and `status` load no arktype at all.
const interpreted = (load: () => Promise<unknown>) => () =>
  import("../application/requests/validator-mode.ts").then(load) as Promise<Commands>;
const analysis = from(interpreted(() => import("./commands/analysis.ts")));
const trace = from(interpreted(() => import("./commands/trace.ts")));
const records = from(() => import("./commands/records.ts") as Promise<Commands>);
const workspace = from(() => import("./commands/workspace.ts") as Promise<Commands>);
const measurements = from(interpreted(() => import("./commands/measurements.ts")));
const runSets = from(interpreted(() => import("./commands/run-sets.ts")));
const experiment = from(interpreted(() => import("./commands/experiment.ts")));
const capture = from(interpreted(() => import("./commands/capture.ts")));
const investigations = from(interpreted(() => import("./commands/investigations.ts")));
const workload = from(interpreted(() => import("./commands/workload.ts")));
const mcp = from(() => import("./commands/mcp.ts") as Promise<Commands>);
const pictures = from(interpreted(() => import("./commands/pictures.ts")));
const setup = from(() => import("./commands/setup.ts") as Promise<Commands>);
const summarize = from(interpreted(() => import("./commands/summarize.ts")));

export const COMMANDS: Record<string, CommandEntry> = {
  init: workspace("initCommand", "Create .diagnostics/ in a project root (idempotent)"),
  status: workspace(
    "statusCommand",
    "Workspace identity, corpus HEAD, counts, catalog state and warnings",
  ),
  import: records("importCommand", "Import a profile or trace file (each import is a new run)"),
  runs: records("runsCommand", "Runs (imports and executions)"),
  artifacts: records("artifactsCommand", "Stored native artifacts"),
  analyze: analysis("analyzeCommand", "Read-only analyses over the pinned corpus commit"),
  summarize: summarize(
    "summarizeCommand",
    "A bounded Markdown digest of runs: artifacts with ids, top hotspots with frame ids, " +
      "measurements, limitations; each section names the command that gives its figures in " +
      "full. With --compare and two runs (BASE CANDIDATE): the functions whose self and total " +
      "moved most per metric, and each shared measurement's change with its interval",
  ),
  stacks: analysis("stacksGroup", "Drill down from a frame: callers, callees, example stacks"),
  trace: trace(
    "traceCommand",
    "Trace slices and events; OTLP operation windows, transitions and gaps",
  ),
  flamegraph: pictures(
    "flamegraphCommand",
    "Draw a flamegraph (HTML with search, zoom and tooltips, or SVG) of a run or artifact; " +
      "--diff BASE draws a differential one.",
  ),
  diff: pictures(
    "diffCommand",
    "Functions whose self and total cost moved most between two profiles, of any formats " +
      "(like pprof -diff_base).",
  ),
  export: pictures(
    "exportCommand",
    "Write a run's or artifact's evidence in another tool's format: speedscope, pprof " +
      "(gzipped profile.proto), chrome-trace, collapsed.",
  ),
  open: pictures(
    "openCommand",
    "Serve a run's or artifact's profile to the speedscope viewer on 127.0.0.1 only and " +
      "print the URL; stops on Ctrl-C or after --timeout.",
  ),
  validate: workspace(
    "validateCommand",
    "Check workspace integrity (--full rehashes every artifact and Parquet file)",
  ),
  catalog: workspace("catalogCommand", "The derived corpus catalog"),
  measurements: measurements("measurementsCommand", "Benchmark samples"),
  "run-sets": runSets("runSetsCommand", "Frozen run sets"),
  experiment: experiment("experimentCommand", "Declared experiments: plan, run, show"),
  investigations: investigations("investigationsCommand", "Investigations: create, list, show"),
  hypotheses: investigations("hypothesesCommand", "Hypotheses: record (new or revision), show"),
  findings: investigations("findingsCommand", "Findings: record (new or revision), list, show"),
  workload: workload("workloadCommand", "Workloads declared in flameox.toml"),
  capture: capture(
    "captureCommand",
    "Plan or run a capture of a declared workload under a capture adapter",
  ),
  capabilities: workload(
    "capabilitiesCommand",
    "Capture adapters and containment: absent, incompatible, permission_required or available",
  ),
  recover: workload(
    "recoverCommand",
    "Close runs whose owning process is provably gone (boot id, pid and start time); live " +
      "runs are never touched",
  ),
  mcp: mcp("mcpCommand", "The MCP stdio server over the same services as the CLI"),
  setup: setup(
    "setupCommand",
    "Add the flameox MCP server to Claude Code, Cursor, Codex, VS Code, Gemini CLI or " +
      "OpenCode (shows the diff, backs up, verifies)",
  ),
};

const meta = {
  name: "flameox",
  version: FLAMEOX_VERSION,
  description: "Local runtime evidence for coding agents",
};

export const main = defineCommand({
  meta,
  subCommands: Object.fromEntries(
    Object.entries(COMMANDS).map(([name, entry]) => [name, entry.load]),
  ),
});

/** The top-level usage, from the table alone: listing the commands loads none of them. */
const mainUsage = defineCommand({
  meta,
  subCommands: Object.fromEntries(
    Object.entries(COMMANDS).map(([name, entry]) => [
      name,
      defineCommand({ meta: { name, description: entry.description } }),
    ]),
  ),
});

export async function runCli(rawArgs: string[]): Promise<number> {
  if (rawArgs[0] === "__parse-worker") {
    const { runParseWorker } = await import("../../workers/parse.ts");
    return runParseWorker(rawArgs[1] ?? "");
  }
  if (rawArgs.length === 0 || rawArgs.includes("--help") || rawArgs.includes("-h")) {
    const { showHelp } = await import("./help.ts");
    await showHelp(rawArgs.some((arg) => !arg.startsWith("-")) ? main : mainUsage, rawArgs);
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
    return printError(
      new FlameoxError("INVALID_ARGUMENTS", message, { remediation: ["Run `flameox --help`"] }),
      { json },
    );
  }
}

if (import.meta.main) {
  // Results are written synchronously and completely (see output.ts), so exiting cannot cut them
  // off.
  process.exit(await runCli(process.argv.slice(2)));
}
