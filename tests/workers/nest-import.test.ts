/**
 * A trace extracted with its slices nested on a thread of their own writes exactly the Parquet
 * parts of one nested by the parser: byte for byte, every table, for generated Chrome and
 * Perfetto traces and every corpus file of both formats (workers/extract-tables.ts with and
 * without `nestThreads`), with the thread really used; a file that fails, fails the same way.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS, type ProducerAdapter } from "../../src/adapters/adapter.ts";
import { chromeTraceAdapter } from "../../src/adapters/chrome-trace/adapter.ts";
import { perfettoAdapter } from "../../src/adapters/perfetto/adapter.ts";
import { generateChromeTrace } from "../../fixtures/generators/chrome-trace.ts";
import { generatePerfetto } from "../../fixtures/generators/perfetto.ts";
import { extractTables } from "../../workers/extract-tables.ts";
import { corpusFiles, loadPayload } from "../adapters/corpus-files.ts";
import { TEST_PROVENANCE } from "../helpers.ts";

const root = mkdtempSync(join(tmpdir(), "flameox-nest-import-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function payloadOf(path: string) {
  const bytes = loadPayload(path);
  return {
    compression: "none" as const,
    head: bytes.subarray(0, 65536),
    chunks: (async function* () {
      for (let at = 0; at < bytes.length; at += 1 << 16) yield bytes.subarray(at, at + (1 << 16));
    })(),
  };
}

let extractions = 0;

/** Every part written, table by table: its rows and its file's bytes. */
async function extracted(adapter: ProducerAdapter, path: string, nestThreads: boolean) {
  const outputDir = join(
    root,
    `${adapter.name}-${nestThreads ? "thread" : "here"}-${extractions++}`,
  );
  mkdirSync(outputDir);
  const result = await extractTables(adapter, payloadOf(path), {
    displayName: path,
    limits: DEFAULT_ADAPTER_LIMITS,
    outputDir,
    provenance: TEST_PROVENANCE,
    nestThreads,
  });
  return {
    nestThreads: result.nestThreads,
    evidence: result.evidence,
    parts: result.tables.map((p) => ({
      table: p.table,
      rows: p.rows,
      bytes: new Uint8Array(readFileSync(join(outputDir, p.file))),
    })),
  };
}

describe("slices nested on a thread", () => {
  const cases: [ProducerAdapter, (path: string) => Promise<unknown>][] = [
    [chromeTraceAdapter, (path) => generateChromeTrace(path, 3 << 20, 5)],
    [perfettoAdapter, (path) => generatePerfetto(path, 2 << 20, 9)],
  ];
  for (const [adapter, generate] of cases) {
    test(`${adapter.name}: the same parts, byte for byte, as nested by the parser`, async () => {
      const path = join(root, `${adapter.name}.trace`);
      await generate(path);
      const here = await extracted(adapter, path, false);
      const thread = await extracted(adapter, path, true);
      expect(here.nestThreads).toBe(0);
      expect(thread.nestThreads).toBe(1);
      const rows = (parts: typeof here.parts) => parts.map((p) => `${p.table}:${p.rows}`);
      expect(rows(thread.parts)).toEqual(rows(here.parts));
      expect(here.parts.find((p) => p.table === "stacks")!.rows).toBeGreaterThan(100);
      expect(here.parts.find((p) => p.table === "call_edges")!.rows).toBeGreaterThan(10);
      thread.parts.forEach((part, k) => expect(part.bytes).toEqual(here.parts[k]!.bytes));
      expect(thread.evidence).toEqual(here.evidence);
    }, 60_000);
  }

  const corpus: [ProducerAdapter, string][] = [
    [chromeTraceAdapter, "chrome-trace"],
    [perfettoAdapter, "perfetto"],
  ];
  for (const [adapter, format] of corpus)
    for (const file of corpusFiles(format))
      test(`${format}/${file.name}: the same parts, or the same failure, nested on a thread`, async () => {
        const outcome = (nestThreads: boolean) =>
          extracted(adapter, file.path, nestThreads).then(
            (result) => ({ ...result, nestThreads: undefined, threads: result.nestThreads }),
            (error: unknown) => ({ failed: String(error) }),
          );
        const here = await outcome(false);
        const thread = await outcome(true);
        if ("failed" in here) {
          expect(thread).toEqual(here);
          return;
        }
        expect(here.threads).toBe(0);
        expect(thread).toEqual({ ...here, threads: 1 });
      }, 60_000);
});
