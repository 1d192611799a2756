/**
 * Cost of verified reads on hotspots. Builds a corpus holding a generated cpuprofile
 * with 1M samples (as bench/mcp-latency.ts does), then times `analyzeHotspots` in one
 * process as a one-shot CLI call makes it (no decoded-part cache, so each call reads its
 * parts; a long-lived MCP server decodes, and so verifies, each part once), interleaved
 * call by call:
 *   - verified: every part hotspots reads is hashed again (the verdict cache is cleared
 *     before the call) — what the first query of a process pays;
 *   - cached: the verdict cache holds the parts — what every later query pays. It does
 *     all the work of an unverified read plus one fstat per part, so it stands for
 *     "without verification".
 * Also prints the bytes hashed per call and SHA-256 alone over those bytes. Figures only.
 *
 *   bun bench/verified-read-latency.ts [--samples 1000000] [--calls 30]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { generateCpuProfile } from "../fixtures/generators/cpuprofile.ts";
import { analyzeHotspots } from "../src/analysis/hotspots.ts";
import { resolveSubject } from "../src/analysis/subject.ts";
import { WorkspaceService } from "../src/application/workspace-service.ts";
import { forgetVerifiedParts, partVerificationStats } from "../src/storage/evidence-part.ts";

const { values } = parseArgs({
  options: {
    samples: { type: "string", default: "1000000" },
    calls: { type: "string", default: "30" },
  },
});
const samples = Number(values.samples);
const calls = Number(values.calls);
const cli = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "flameox-verify-bench-"));

function run(args: string[]): string {
  const r = Bun.spawnSync([process.execPath, cli, ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stdout}${r.stderr}`);
  return r.stdout.toString();
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `p50 ${percentile(s, 0.5).toFixed(2)} ms, p95 ${percentile(s, 0.95).toFixed(2)} ms`;
};

try {
  run(["init", dir]);
  const profile = join(dir, "big.cpuprofile");
  await generateCpuProfile(profile, samples * 11 + 2_000_000);
  const imported = JSON.parse(run(["import", profile, "--json"]));
  const service = await WorkspaceService.open({ workspace: dir });
  const hotspots = async () => {
    const snapshot = service.pin();
    await analyzeHotspots(snapshot, resolveSubject(service.ws, snapshot, imported.artifact_id), {
      limit: 20,
    });
  };
  await hotspots(); // parquet-wasm start-up
  const verified: number[] = [];
  const cached: number[] = [];
  let hashedBytes = 0;
  for (let i = 0; i < calls; i++) {
    forgetVerifiedParts();
    const before = partVerificationStats.hashedBytes;
    let t = performance.now();
    await hotspots();
    verified.push(performance.now() - t);
    hashedBytes = partVerificationStats.hashedBytes - before;
    t = performance.now();
    await hotspots();
    cached.push(performance.now() - t);
  }
  const buffer = new Uint8Array(hashedBytes);
  const t = performance.now();
  for (let i = 0; i < calls; i++) new Bun.CryptoHasher("sha256").update(buffer).digest("hex");
  const hashMs = (performance.now() - t) / calls;
  // The engine recipes (callers, stacks) read the larger parts; hashing all of them once:
  const snapshot = service.pin();
  const entry = snapshot.generations({ artifactId: imported.artifact_id })[0]!;
  const all = snapshot.manifest(entry).files.reduce((n, f) => n + f.bytes, 0);
  const t2 = performance.now();
  new Bun.CryptoHasher("sha256").update(new Uint8Array(all)).digest("hex");
  const allMs = performance.now() - t2;
  service.close();
  console.log(
    `corpus: cpuprofile with ${samples} samples (${imported.extraction.tables.frames} ` +
      `frames, ${imported.extraction.tables.frame_measurements} frame measurements)`,
  );
  console.log(`hotspots, parts rehashed every call (${hashedBytes} bytes): ${summary(verified)}`);
  console.log(`hotspots, verdicts cached (no rehash, one fstat per part): ${summary(cached)}`);
  console.log(`SHA-256 alone over ${hashedBytes} bytes: ${hashMs.toFixed(3)} ms`);
  console.log(
    `SHA-256 over every part of the generation (${all} bytes, once per ` +
      `process): ${allMs.toFixed(2)} ms`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
