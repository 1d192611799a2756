/**
 * Import throughput of the line-oriented sampled-stack formats: a generated perf script
 * and the same samples as collapsed stacks, each streamed through its adapter in 1 MiB
 * chunks with file spill space, beside a plain line split of the same bytes (TextDecoder
 * + indexOf) as the floor. Prints MB/s per wall second and per CPU second of this
 * process, and its peak RSS, per step. Not a timed assertion.
 *
 *   bun bench/sampled-stacks-bench.ts [megabytes=100] [write-prefix]
 *
 * With a write prefix the generated inputs are also written (PREFIX.perf.txt,
 * PREFIX.collapsed.txt), e.g. to import them through the CLI and its capped worker.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS, type ProducerAdapter } from "../src/adapters/adapter.ts";
import { collapsedStacksAdapter } from "../src/adapters/collapsed-stacks/adapter.ts";
import { perfScriptAdapter } from "../src/adapters/perf-script/adapter.ts";
import { FileSpillSpace } from "../workers/spill-space.ts";
import {
  type SampledTextKind,
  sampledTextChunks,
} from "../fixtures/generators/sampled-stacks-text.ts";

const MB = Number(process.argv[2] ?? 100);

function generate(kind: SampledTextKind, bytes: number): Uint8Array[] {
  return [...sampledTextChunks(kind, bytes)];
}

async function* stream(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);

async function measure(label: string, bytes: number, run: () => Promise<unknown>): Promise<void> {
  Bun.gc(true);
  peak = process.memoryUsage().rss;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await run();
  const s = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  // On a shared host wall time mostly measures the neighbours: MB per CPU-second is the steadier
  // figure.
  console.log(
    `${label.padEnd(34)} ${(bytes / 2 ** 20 / s).toFixed(1).padStart(7)} MB/s ` +
      `wall  ${(bytes / 2 ** 20 / cpuS).toFixed(1).padStart(7)} MB/cpu-s  ${s.toFixed(2)} s  ` +
      `peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB`,
  );
}

async function importWith(adapter: ProducerAdapter, chunks: Uint8Array[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "flameox-bench-"));
  const spill = new FileSpillSpace(dir, () => {});
  let rows = 0;
  try {
    await adapter.extractStream!({
      chunks: stream(chunks),
      displayName: "bench",
      limits: DEFAULT_ADAPTER_LIMITS,
      spill,
      sink: { writeBatch: async (b) => void (rows += b.length) },
    });
  } finally {
    spill.disposeAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

function lineSplit(chunks: Uint8Array[]): number {
  const decoder = new TextDecoder();
  let lines = 0;
  let carry = "";
  for (const c of chunks) {
    const text = carry + decoder.decode(c, { stream: true });
    let at = 0;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", at)) {
      lines++;
      at = end + 1;
    }
    carry = text.slice(at);
  }
  return lines;
}

for (const kind of ["perf", "collapsed"] as const) {
  const chunks = generate(kind, MB * 2 ** 20);
  if (process.argv[3])
    await Bun.write(
      `${process.argv[3]}.${kind}.txt`,
      new Blob(chunks as Uint8Array<ArrayBuffer>[]),
    );
  const bytes = chunks.reduce((n, c) => n + c.length, 0);
  console.log(`${kind}: ${(bytes / 2 ** 20).toFixed(0)} MiB generated`);
  await measure(`  plain line split`, bytes, async () => lineSplit(chunks));
  await measure(
    `  ${kind === "perf" ? "perf-script" : "collapsed-stacks"} extractStream`,
    bytes,
    () => importWith(kind === "perf" ? perfScriptAdapter : collapsedStacksAdapter, chunks),
  );
}
clearInterval(sampler);
