/**
 * Broker overhead: wall time of `flameox capture run command` on `true` and on a 1 s
 * sleep, uncontained (trusted_local) and contained (managed, bubblewrap), against running
 * the same argv directly and directly inside the same bubblewrap sandbox without flameox
 * (median of N, default 20); the same capture in-process (no CLI start-up, the sandbox
 * probe cached); the CLI start-up share; and the resource sampler's cost per tick.
 *   bun bench/broker-overhead.ts [N]
 * Figures, not assertions. Every column is measured in the same run, interleaved per
 * workload, so machine load affects them alike.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { WorkspaceService } from "../src/application/workspace-service.ts";
import { bubblewrapArgv, privateDirectories } from "../src/broker/containment.ts";
import { locateBubblewrap, probeSandbox } from "../src/broker/sandbox-probe.ts";
import { ResourceSampler } from "../src/broker/resource-sampler.ts";
import {
  closeSeccompProgram,
  openSeccompProgram,
  SECCOMP_FD_PLACEHOLDER,
} from "../src/broker/seccomp-filter.ts";

const N = Number(process.argv[2] ?? 20);
const CLI = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const root = realpathSync(mkdtempSync(join(tmpdir(), "flameox-bench-")));
writeFileSync(
  join(root, "flameox.toml"),
  '[workloads.true]\nargv = ["true"]\n\n[workloads.sleep1]\nargv = ["sleep", "1"]\n',
);
await WorkspaceService.init(root);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
async function timed(n: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}
const spawnWait = async (argv: string[], cwd = root, descriptors: number[] = []) => {
  const child = Bun.spawn(argv, {
    cwd,
    stdio: ["ignore", "ignore", "pipe", ...descriptors],
    env: { ...process.env, NO_COLOR: "1" },
  });
  if ((await child.exited) !== 0)
    throw new Error(
      `${argv.join(" ")} failed: ${await new Response(child.stderr as ReadableStream).text()}`,
    );
};
/**
 * The same bwrap argv the broker runs, its seccomp program handed over as fd 3 as the broker does.
 */
const spawnSandboxed = async (argv: string[]) => {
  const fd = openSeccompProgram()!;
  try {
    await spawnWait(
      argv.map((item) => (item === SECCOMP_FD_PLACEHOLDER ? "3" : item)),
      root,
      [fd],
    );
  } finally {
    closeSeccompProgram(fd);
  }
};

// Containment is measured only where the sandbox is proven here.
const located = locateBubblewrap(process.env.PATH, root);
const bwrap =
  "executable" in located && (await probeSandbox(located.executable.path, process.env.HOME)).proven
    ? located.executable.path
    : null;
const outDir = join(root, ".diagnostics", "bench-out");
mkdirSync(outDir, { recursive: true });
const sandboxed = (argv: readonly string[]) =>
  bubblewrapArgv(
    bwrap!,
    {
      projectRoot: root,
      diagnosticsDir: join(root, ".diagnostics"),
      writableRoots: [],
      outputDir: outDir,
      cwd: root,
      privateDirs: privateDirectories(process.env.HOME),
    },
    [...argv],
  );
const probeMs = bwrap
  ? await timed(Math.min(N, 5), () => probeSandbox(bwrap, process.env.HOME))
  : null;

const service = await WorkspaceService.open({ workspace: root });
// Only approved workloads run: approve both as `flameox workload approve NAME --yes` would.
for (const name of ["true", "sleep1"]) (await service.capture()).approveWorkload(name);
const rows: string[][] = [
  [
    "workload",
    "containment",
    "direct argv",
    "capture in-process",
    "flameox capture run (CLI)",
    "CLI overhead",
    "CLI start-up share of overhead",
  ],
];
const startup = await timed(N, () => spawnWait([process.execPath, CLI, "--version"]));
const samplerCosts: { samples: number; ms: number }[] = [];
for (const [name, argv] of [
  ["true", ["/bin/true"]],
  ["sleep1", ["/bin/sleep", "1"]],
] as const) {
  for (const containment of ["trusted_local", "managed"] as const) {
    if (containment === "managed" && !bwrap) {
      rows.push([name, containment, "unavailable", "", "", "", ""]);
      continue;
    }
    const direct = await timed(N, () =>
      containment === "managed" ? spawnSandboxed(sandboxed(argv)) : spawnWait([...argv]),
    );
    const inProcess = await timed(N, async () => {
      const r = await (await service.capture()).run({
        adapter: "command",
        workload: name,
        containment,
      });
      samplerCosts.push({ samples: r.resources.samples, ms: r.resources.sampler_cpu_ms });
    });
    const viaCli = await timed(N, () =>
      spawnWait([
        process.execPath,
        CLI,
        "capture",
        "run",
        "command",
        "--workload",
        name,
        "--containment",
        containment,
        "--json",
      ]),
    );
    const overhead = viaCli - direct;
    rows.push([
      name,
      containment === "managed" ? "managed (direct = same bwrap argv)" : containment,
      `${direct.toFixed(1)} ms`,
      `${inProcess.toFixed(1)} ms (+${(inProcess - direct).toFixed(1)})`,
      `${viaCli.toFixed(1)} ms`,
      `${overhead.toFixed(1)} ms`,
      `${((100 * startup) / overhead).toFixed(0)}% (start-up ${startup.toFixed(1)} ms)`,
    ]);
  }
}
service.close();

// Sampler cost per tick over a tree of 1 and of 21 processes (a shell with 20 sleeping children).
async function tickCost(argv: string[]): Promise<{ processes: number; perTickMs: number }> {
  const child = Bun.spawn(argv, { stdout: "ignore", stderr: "ignore", detached: true });
  await Bun.sleep(300);
  const sampler = new ResourceSampler(
    child.pid,
    { intervalMs: 250, freeBytesPath: root },
    () => {},
  );
  const ticks = 200;
  for (let i = 0; i < ticks; i++) sampler.tick();
  const report = sampler.report();
  process.kill(-child.pid, "SIGKILL");
  await child.exited;
  return { processes: report.max_processes_observed, perTickMs: report.sampler_cpu_ms / ticks };
}
const small = await tickCost(["/bin/sleep", "30"]);
const wide = await tickCost(["/bin/sh", "-c", "for i in $(seq 20); do sleep 30 & done; wait"]);
rmSync(root, { recursive: true, force: true });

const width = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
console.log(`broker overhead, median of ${N} (machine: ${navigator.hardwareConcurrency} cores)`);
console.log(
  bwrap
    ? `bubblewrap: ${bwrap}; behaviour probe (once per process, cached 60 ` +
        `s): ${probeMs!.toFixed(1)} ms median`
    : "bubblewrap: unavailable here, managed rows skipped",
);
for (const r of rows) console.log(r.map((c, i) => c.padEnd(width[i]!)).join("  "));
const totalSamples = samplerCosts.reduce((a, c) => a + c.samples, 0);
const totalMs = samplerCosts.reduce((a, c) => a + c.ms, 0);
console.log(
  `sampler during captures: ${totalSamples} samples, ${totalMs.toFixed(2)} ms ` +
    `total, ${(totalMs / Math.max(1, totalSamples)).toFixed(3)} ms per sample`,
);
for (const c of [small, wide]) {
  console.log(
    `sampler tick over ${c.processes} process(es): ${c.perTickMs.toFixed(3)} ms per tick ` +
      `= ${((100 * c.perTickMs) / 250).toFixed(3)}% of one core at the default 250 ms interval`,
  );
}
