/**
 * Artifact registration of a large file: the store's one-pass copy (read, hash and write
 * pipelined, one fsync) against the same steps taken in turn (read a chunk, hash it,
 * write it, repeat; the store's previous loop), and against a plain copy with no hash,
 * in the same run, alternating, so machine load falls on all three alike. Figures only.
 *
 *   bun bench/registration-bench.ts [--mb 200] [--rounds 5]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { stageArtifact } from "../src/storage/cas.ts";

const { values } = parseArgs({
  options: { mb: { type: "string", default: "200" }, rounds: { type: "string", default: "5" } },
});
const MB = 1024 * 1024;
const CHUNK = 4 * MB;
const dir = mkdtempSync(join(tmpdir(), "flameox-registration-"));
const source = join(dir, "input.bin");

async function sequential(target: string): Promise<void> {
  const from = await open(source, "r");
  const to = await open(target, "wx", 0o600);
  const hasher = new Bun.CryptoHasher("sha256");
  const buffer = new Uint8Array(CHUNK);
  for (;;) {
    const { bytesRead } = await from.read(buffer, 0, CHUNK, null);
    if (bytesRead === 0) break;
    hasher.update(buffer.subarray(0, bytesRead));
    await to.write(buffer.subarray(0, bytesRead));
  }
  await to.sync();
  await Promise.all([from.close(), to.close()]);
  hasher.digest("hex");
}

async function plainCopy(target: string): Promise<void> {
  const from = await open(source, "r");
  const to = await open(target, "wx", 0o600);
  const buffer = new Uint8Array(CHUNK);
  for (;;) {
    const { bytesRead } = await from.read(buffer, 0, CHUNK, null);
    if (bytesRead === 0) break;
    await to.write(buffer.subarray(0, bytesRead));
  }
  await to.sync();
  await Promise.all([from.close(), to.close()]);
}

const variants: [string, (target: string) => Promise<unknown>][] = [
  [
    "store: one pass, pipelined (stageArtifact)",
    (target) => stageArtifact(source, target, { maxBytes: Number.MAX_SAFE_INTEGER }),
  ],
  ["read, hash, write in turn (previous loop)", sequential],
  ["copy + fsync, no hash (floor)", plainCopy],
];

try {
  const mb = Number(values.mb);
  const bytes = new Uint8Array(mb * MB);
  for (let i = 0; i < bytes.length; i += 512) bytes[i] = (i * 2654435761) >>> 24;
  writeFileSync(source, bytes);
  const results = new Map<string, { wall: number[]; cpu: number[] }>(
    variants.map(([name]) => [name, { wall: [], cpu: [] }]),
  );
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [name, run] of variants) {
      const target = join(dir, `staged-${round}`);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await run(target);
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      results.get(name)!.wall.push(wall);
      results.get(name)!.cpu.push((cpu.user + cpu.system) / 1000);
      rmSync(target, { force: true });
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`registration of a ${mb} MB file, ${values.rounds} alternating rounds (median; min)`);
  for (const [name, r] of results) {
    const wall = median(r.wall);
    console.log(
      `  ${name.padEnd(44)} wall ${wall.toFixed(0).padStart(5)} ms ` +
        `(min ${Math.min(...r.wall).toFixed(0)})  ` +
        `${(mb / (wall / 1000)).toFixed(0).padStart(4)} MB/s  cpu ${median(r.cpu).toFixed(0)} ` +
        `ms`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
