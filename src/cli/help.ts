/**
 * `--help`: citty's usage for the deepest named command, then examples for it, and for
 * `import` the formats it reads, listed from the adapter registry so an adapter that is
 * added shows up without editing help text.
 */
import { type CommandDef, showUsage } from "citty";

/** Examples by command path; a group shows the examples of all its commands. */
export const EXAMPLES: Record<string, string[]> = {
  init: ["flameox init            # in the project root", "flameox init ../service"],
  status: ["flameox status", "flameox status --json"],
  import: [
    "node --cpu-prof --cpu-prof-name=app.cpuprofile app.js && flameox import app.cpuprofile",
    "flameox import trace.json.gz --sensitivity internal",
  ],
  "runs list": ["flameox runs list --limit 10"],
  "runs show": ["flameox runs show run_01J…"],
  "runs logs": [
    "flameox runs logs run_01J…            # stdout and stderr a capture stored",
    "flameox runs logs run_01J… --stream stderr",
  ],
  "artifacts list": ["flameox artifacts list"],
  "artifacts show": ["flameox artifacts show sha256:3f2a9c1e"],
  "artifacts get": [
    "flameox artifacts get sha256:3f2a9c1e -o copy.cpuprofile   # the verified native bytes",
  ],
  flamegraph: [
    "flameox flamegraph sha256:3f2a9c1e -o flame.html",
    "flameox flamegraph run_01B… --diff run_01A… -o change.svg",
  ],
  diff: ["flameox diff sha256:3f2a9c1e sha256:77b0e4d1 --limit 10"],
  export: ["flameox export sha256:3f2a9c1e --format speedscope -o app.speedscope.json"],
  open: ["flameox open sha256:3f2a9c1e   # speedscope on 127.0.0.1 until Ctrl-C"],
  "analyze hotspots": [
    "flameox analyze hotspots sha256:3f2a9c1e --limit 10",
    "flameox analyze hotspots run_01J… --granularity line --exclude-pseudo-frames",
  ],
  "analyze accelerator": [
    "flameox analyze accelerator sha256:7e41c2d0   # an imported Nsight Systems export or " +
      "torch.profiler trace",
    "flameox analyze accelerator run_01J… --min-gap-ns 100000",
  ],
  "analyze operators": [
    "flameox analyze operators sha256:5a9e01c7   # an imported torch.profiler trace",
    "flameox analyze operators run_01J… --limit 20 --json",
  ],
  "analyze coverage": [
    "flameox analyze coverage sha256:6c2e90ab   # an imported .coverage, coverage.json or " +
      "coverage.xml",
    "flameox analyze coverage run_01B… --diff run_01A…   # newly and no longer executed lines",
  ],
  "analyze compare": [
    "flameox analyze compare comparison.json",
    "flameox analyze compare --baseline-run run_01A… --candidate-run run_01B… --metric " +
      "wall_time --scope 'sleep 0.1'",
  ],
  "analyze record-comparison": ["flameox analyze record-comparison comparison.json"],
  "analyze scaling": ["flameox analyze scaling exp_01J…"],
  "analyze record": ["flameox analyze record analysis.json"],
  "analyze failures": [
    "flameox analyze failures sha256:5d0e7a12   # an imported pytest reportlog or JUnit XML",
    "flameox analyze failures run_01A… run_01B…   # flaky tests across runs",
  ],
  "stacks callers": ["flameox stacks callers sha256:3f2a9c1e FRAME_ID --limit 5"],
  "stacks callees": ["flameox stacks callees sha256:3f2a9c1e FRAME_ID"],
  "stacks examples": ["flameox stacks examples sha256:3f2a9c1e FRAME_ID --limit 3"],
  "trace window": ["flameox trace window sha256:9b1c0d2e --start 0 --end 5000000"],
  "trace operation-window": [
    "flameox trace operation-window sha256:9b1c0d2e --start 0 --end 1000000000",
  ],
  "trace transitions": ["flameox trace transitions sha256:9b1c0d2e --max-depth 3"],
  "trace gaps": ["flameox trace gaps sha256:9b1c0d2e"],
  summarize: [
    "flameox summarize run_01J…   # Markdown a reviewer can check against each command's --json",
    "flameox summarize run_01A… run_01B… --json",
    "flameox summarize run_01A… run_01B… --compare   # what moved from the base run to the " +
      "candidate: functions, measurements",
  ],
  validate: [
    "flameox validate",
    "flameox validate --full   # rehash every artifact and Parquet file",
  ],
  "catalog rebuild": ["flameox catalog rebuild"],
  "catalog validate": ["flameox catalog validate"],
  "measurements query": ["flameox measurements query --run-id run_01J… --limit 20"],
  "run-sets freeze": ["flameox run-sets freeze run_01A… run_01B…"],
  "run-sets show": ["flameox run-sets show rs_01J…"],
  "experiment plan": ["flameox experiment plan parse-speed"],
  "experiment run": ["flameox experiment run parse-speed"],
  "experiment show": ["flameox experiment show exp_01J…"],
  "experiment trials": ["flameox experiment trials exp_01J… --limit 20"],
  "investigations create": ["flameox investigations create investigation.json"],
  "investigations list": ["flameox investigations list"],
  "investigations show": ["flameox investigations show inv_01J…"],
  "hypotheses record": ["flameox hypotheses record hypothesis.json"],
  "hypotheses show": ["flameox hypotheses show hyp_01J…"],
  "findings record": ["flameox findings record finding.json"],
  "findings list": ["flameox findings list --investigation inv_01J…"],
  "findings show": ["flameox findings show fnd_01J…"],
  "workload list": ["flameox workload list"],
  "workload show": ["flameox workload show bench"],
  "workload approve": [
    "flameox workload approve bench        # shows the exact form, asks on a terminal",
  ],
  "workload revoke": ["flameox workload revoke bench"],
  "capture plan": ["flameox capture plan v8-cpu --workload bench"],
  "capture run": [
    "flameox capture run v8-cpu --workload bench",
    "flameox capture run hyperfine --workload bench",
  ],
  capabilities: ["flameox capabilities", "flameox capabilities --refresh"],
  recover: ["flameox recover"],
  "mcp serve": ["flameox mcp serve --project-root .   # what an agent client starts"],
  "mcp inspect": ["flameox mcp inspect"],
  setup: [
    "flameox setup                         # detected clients, this project; shows the diff " +
      "and asks",
    "flameox setup --client codex --scope user --yes",
    "flameox setup --rollback",
  ],
};

export function examplesFor(path: string[]): string[] {
  const key = path.join(" ");
  if (key === "")
    return [
      "flameox init && flameox import app.cpuprofile",
      "flameox analyze hotspots sha256:3f2a9c1e --limit 10",
      "flameox setup   # connect Claude Code, Cursor, Codex, VS Code, Gemini CLI or OpenCode",
    ];
  return (
    EXAMPLES[key] ??
    Object.entries(EXAMPLES)
      .filter(([k]) => k.startsWith(`${key} `))
      .flatMap(([, lines]) => lines)
  );
}

async function formatsSection(): Promise<string[]> {
  const { importFormats } = await import("../application/import-formats.ts");
  const ADAPTERS = await importFormats();
  const width = Math.max(...ADAPTERS.map((a) => a.name.length));
  return [
    "FORMATS (detected from content; --adapter NAME forces one; gzip and zstd are accepted)",
    "",
    ...ADAPTERS.map((a) => `  ${a.name.padEnd(width)}  ${a.artifactKind}`),
  ];
}

type Command = Parameters<typeof showUsage>[0];

// biome-ignore lint/suspicious/noExplicitAny: citty's command types are generic
export async function showHelp(main: CommandDef<any>, rawArgs: string[]): Promise<void> {
  // Walk down to the deepest named subcommand so `flameox stacks callers --help` helps with that.
  let cmd = main as Command;
  let parent: Parameters<typeof showUsage>[1];
  const path: string[] = [];
  for (const arg of rawArgs) {
    if (arg.startsWith("-")) break;
    const subs = (await (typeof cmd.subCommands === "function"
      ? cmd.subCommands()
      : cmd.subCommands)) as Record<string, Command | (() => Promise<Command>)> | undefined;
    const entry = subs?.[arg];
    const next = typeof entry === "function" ? await entry() : entry;
    if (!next) break;
    parent = cmd;
    cmd = next;
    path.push(arg);
  }
  await showUsage(cmd, parent);
  const extra: string[] = [];
  if (path.join(" ") === "import") extra.push(...(await formatsSection()), "");
  const examples = examplesFor(path);
  if (examples.length > 0) extra.push("EXAMPLES", "", ...examples.map((e) => `  ${e}`), "");
  if (extra.length > 0) process.stdout.write(extra.join("\n") + "\n");
}
