/**
 * The whole-payload path of a JSON sampled-stack format, for import-bench.ts to measure
 * beside the streamed import: reads the file into memory and runs the reference adapter
 * (JSON.parse of the whole document, one object per sample or program point; kept in
 * tests/adapters/reference-*). Prints the time it took and the rows it made as JSON; the
 * caller reads CPU time and peak RSS from this process's rusage.
 *
 *   bun bench/whole-payload-extract.ts speedscope|dhat FILE
 */
import { DEFAULT_ADAPTER_LIMITS, type ProducerAdapter } from "../src/adapters/adapter.ts";
import { dhatReference } from "../tests/adapters/reference-dhat/reference-adapter.ts";
import { speedscopeReference } from "../tests/adapters/reference-speedscope/reference-adapter.ts";

const references: Record<string, ProducerAdapter> = {
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
const evidence = adapter.extract({ bytes, displayName: "bench", limits: DEFAULT_ADAPTER_LIMITS });
console.log(
  JSON.stringify({
    ms: performance.now() - started,
    rows: Object.fromEntries(
      Object.entries(evidence.tables).map(([name, table]) => [name, table.rowCount]),
    ),
  }),
);
