/**
 * speedscope's own importer of a collapsed-stacks or `perf script` file, timed in this
 * process: read the bytes, decode them as speedscope does (BufferBackedTextFileContent) and
 * build its profile(s). Prints one JSON line: `{ ms, profiles, samples, peakBytes }` (samples:
 * the summed weight of every profile, so the caller can see that it read the file).
 *
 * With MAX_BYTES, only the file's first MAX_BYTES are read, cut after the last whole
 * sample (collapsed: a line; perf script: a blank line): speedscope holds the whole text and
 * its profile in memory, many times the file's size.
 *
 *   bun bench/speedscope-import.ts collapsed|perf FILE [MAX_BYTES]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

// Loaded by computed paths so the typecheck does not follow them: speedscope's sources are
// checked by its own (looser) settings, not this project's.
const vendor = join(import.meta.dir, "vendor", "speedscope", "import");
const { importFromBGFlameGraph } = await import(join(vendor, "bg-flamegraph.ts"));
const { importFromLinuxPerf } = await import(join(vendor, "linux-tools-perf.ts"));
const { BufferBackedTextFileContent } = await import(join(vendor, "utils.ts"));

interface SpeedscopeProfile {
  getTotalWeight(): number;
}

const [kind, path, maxBytes] = process.argv.slice(2);
if ((kind !== "collapsed" && kind !== "perf") || !path) {
  console.error("usage: bun bench/speedscope-import.ts collapsed|perf FILE");
  process.exit(2);
}
const started = performance.now();
const bytes = prefix(readFileSync(path), maxBytes ? Number(maxBytes) : Number.POSITIVE_INFINITY);
const contents = new BufferBackedTextFileContent(
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
);
const profiles: SpeedscopeProfile[] =
  kind === "collapsed"
    ? [importFromBGFlameGraph(contents)].filter((p) => p !== null)
    : (importFromLinuxPerf(contents)?.profiles ?? []);
const ms = performance.now() - started;
const samples = profiles.reduce((sum, p) => sum + p.getTotalWeight(), 0);
/** The first `max` bytes, cut after the last whole sample. */
function prefix(all: Buffer, max: number): Buffer {
  if (all.length <= max) return all;
  const head = all.subarray(0, max);
  const cut = kind === "perf" ? head.lastIndexOf("\n\n") + 2 : head.lastIndexOf("\n") + 1;
  return all.subarray(0, cut);
}

// VmHWM is this process's own peak: rusage's maxrss may start at the spawning process's size.
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
const peakBytes = hwm ? Number(hwm[1]) * 1024 : null;
console.log(
  JSON.stringify({ ms, bytes: bytes.length, profiles: profiles.length, samples, peakBytes }),
);
