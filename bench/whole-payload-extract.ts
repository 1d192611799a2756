/**
 * The whole-payload path of a JSON sampled-stack format, for import-bench.ts to measure
 * beside the streamed import: reads the file into memory and runs the reference adapter
 * (JSON.parse of the whole document, one object per sample or program point; kept in
 * tests/adapters/reference-*). Prints the time it took, this process's own peak RSS
 * (VmHWM: rusage's maxrss may start at the spawning process's size) and the rows it made
 * as JSON; the caller reads CPU time from rusage.
 *
 *   bun bench/whole-payload-extract.ts speedscope|dhat FILE
 */
import { readFileSync } from "node:fs";
import { DEFAULT_ADAPTER_LIMITS } from "../src/adapters/adapter.ts";
import type { ReferenceAdapter } from "../tests/adapters/adapter-harness.ts";
import { dhatReference } from "../tests/adapters/reference-dhat/reference-adapter.ts";
import { speedscopeReference } from "../tests/adapters/reference-speedscope/reference-adapter.ts";

const references: Record<string, ReferenceAdapter> = {
  speedscope: speedscopeReference,
  dhat: dhatReference,
};
const [format, path] = process.argv.slice(2);
const adapter = references[format ?? ""];
if (adapter === undefined || path === undefined) {
  console.error("usage: bun bench/whole-payload-extract.ts speedscope|dhat FILE");
  process.exit(2);
}
const started = performance.now();
const bytes = await Bun.file(path).bytes();
const evidence = await adapter.extract({
  bytes,
  displayName: "bench",
  limits: DEFAULT_ADAPTER_LIMITS,
});
const ms = performance.now() - started;
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
console.log(
  JSON.stringify({
    ms,
    peakBytes: hwm ? Number(hwm[1]) * 1024 : null,
    rows: Object.fromEntries(
      Object.entries(evidence.tables).map(([name, table]) => [name, table.rowCount]),
    ),
  }),
);
