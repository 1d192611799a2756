/**
 * The worker's extraction hands its checkpoint (where the memory governor collects) to
 * streaming adapters, so a pass that writes no rows can still let garbage be collected.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS, type ProducerAdapter } from "../../src/adapters/adapter.ts";
import { extractTables } from "../../workers/extract-tables.ts";

const dir = mkdtempSync(join(tmpdir(), "flameox-extract-tables-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a streaming adapter's checkpoints reach the worker's", async () => {
  const seen: string[] = [];
  let phase = "before";
  const adapter: ProducerAdapter = {
    name: "fake",
    version: "1",
    tables: ["frames"],
    artifactKind: "sample_profile",
    mediaType: "application/json",
    detect: () => 0,
    async extractStream(input) {
      for await (const _ of input.chunks);
      phase = "aggregating";
      input.checkpoint?.();
      phase = "after";
      return {
        adapter: "fake",
        adapterVersion: "1",
        producer: "fake",
        producerVersion: null,
        limitations: [],
        summary: {},
        tables: {},
        streamed: [],
      };
    },
  };
  const bytes = new TextEncoder().encode("{}");
  const result = await extractTables(
    adapter,
    {
      compression: "none",
      head: bytes,
      chunks: (async function* () {
        yield bytes;
      })(),
    },
    {
      displayName: "t",
      limits: DEFAULT_ADAPTER_LIMITS,
      outputDir: dir,
      provenance: {
        schema_version: 1,
        run_id: "r",
        artifact_id: "a",
        evidence_generation_id: "g",
        extractor_name: "fake",
        extractor_version: "1",
      },
      checkpoint: () => seen.push(phase),
    },
  );
  expect(result.tables.map((t) => t.table)).toEqual(["frames"]);
  expect(seen).toContain("aggregating");
});
