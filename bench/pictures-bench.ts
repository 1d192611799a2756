/**
 * Pictures benchmark: time and output size to render a flamegraph (HTML and SVG) of a
 * generated 1M-sample CPU profile and of a generated Chrome trace's slice stacks, and the
 * time to diff two 1M-sample profiles, each through the real CLI, beside `analyze
 * hotspots` of the same subject in the same run as the baseline.
 *
 *   bun bench/pictures-bench.ts                 # 1M samples, 200 MB trace
 *   SAMPLES=200000 TRACE_MB=40 bun bench/pictures-bench.ts   # quicker
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateChromeTrace } from "../fixtures/generators/chrome-trace.ts";
import { generateCpuProfile } from "../fixtures/generators/cpuprofile.ts";

const REPO = join(import.meta.dir, "..");
const samples = Number(process.env.SAMPLES ?? 1_000_000);
const traceMb = Number(process.env.TRACE_MB ?? 200);
const dir = mkdtempSync(join(tmpdir(), "flameox-pictures-bench-"));

function flameox(args: string[]): { seconds: number; json: any; maxRssMb: number } {
  const started = performance.now();
  const run = Bun.spawnSync([process.execPath, join(REPO, "src/cli/main.ts"), ...args, "--json"], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1" },
  });
  const seconds = (performance.now() - started) / 1000;
  if (run.exitCode !== 0)
    throw new Error(`flameox ${args.join(" ")} failed: ${run.stdout}${run.stderr}`);
  return {
    seconds,
    json: JSON.parse(run.stdout.toString()),
    maxRssMb: (run.resourceUsage?.maxRSS ?? 0) / 2 ** 20,
  };
}

const row = (label: string, r: { seconds: number; maxRssMb: number }, extra = "") =>
  console.log(
    `${label.padEnd(44)} ${r.seconds.toFixed(2).padStart(7)} s  ` +
      `peak ${r.maxRssMb.toFixed(0).padStart(5)} MiB  ${extra}`,
  );

try {
  flameox(["init", dir]);
  const a = join(dir, "a.cpuprofile");
  const b = join(dir, "b.cpuprofile");
  await generateCpuProfile(a, samples * 11 + 2_000_000, 7);
  await generateCpuProfile(b, samples * 11 + 2_000_000, 8);
  const trace = join(dir, "trace.json");
  await generateChromeTrace(trace, traceMb << 20, 42);
  const pa = flameox(["import", a]).json.artifact_id;
  const pb = flameox(["import", b]).json.artifact_id;
  const pt = flameox(["import", trace]).json.artifact_id;
  console.log(
    `inputs: 2 profiles of ~${samples} samples, a ${traceMb} MB Chrome trace (machine ` +
      `load: ${(await Bun.file("/proc/loadavg").text()).split(" ")[0]})`,
  );
  for (const [name, subject] of [
    ["profile", pa],
    ["trace", pt],
  ] as const) {
    row(
      `${name}: analyze hotspots (baseline)`,
      flameox(["analyze", "hotspots", subject, "--limit", "10"]),
    );
    for (const format of ["html", "svg"] as const) {
      const out = join(dir, `${name}.${format}`);
      const r = flameox(["flamegraph", subject, "-o", out, "--force"]);
      row(
        `${name}: flamegraph ${format}`,
        r,
        `${(statSync(out).size / 1024).toFixed(0)} KiB, ${r.json.boxes} ` +
          `boxes, ${r.json.merged_boxes} merged`,
      );
    }
  }
  row("diff of the two profiles (limit 20)", flameox(["diff", pa, pb, "--limit", "20"]));
  row(
    "differential flamegraph html",
    flameox(["flamegraph", pb, "--diff", pa, "-o", join(dir, "diff.html"), "--force"]),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
