/**
 * Importers agree with the producers' own tools where they used to differ:
 * - legacy pprof heap and contention stacks: every address (the leaf too) moves back one
 *   byte, as `go tool pprof` does; CPU leaves stay (reference/pprof-legacy-go-pprof.json
 *   holds pprof's own location addresses and column totals for the corpus files);
 * - a sample with no stack is kept on a "(no stack)" root, so totals equal pprof's;
 * - analyses of heap profiles default to inuse_space, as pprof does;
 * - pyperf benchmark tags are kept; hyperfine seconds become whole nanoseconds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { tempWorkspace } from "../helpers.ts";
import { corpusFile, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { extracted } from "./adapter-harness.ts";

interface GoPprof {
  sample_types: string[];
  samples: number;
  totals: number[];
  location_addresses: string[];
}
const REFERENCE = JSON.parse(
  readFileSync(join(import.meta.dir, "reference", "pprof-legacy-go-pprof.json"), "utf8"),
).files as Record<string, GoPprof>;

async function extract(adapter: string, bytes: Uint8Array): Promise<NormalizedEvidence> {
  return await extracted(adapterByName(adapter)!, {
    bytes,
    displayName: "case",
    limits: DEFAULT_ADAPTER_LIMITS,
  });
}
const legacy = async (name: string) =>
  await extract("pprof-legacy", loadPayload(corpusFile("pprof-legacy", name).path));
const selfTotal = (e: NormalizedEvidence, metric: string) =>
  rowsOf(e.tables.frame_measurements)
    .filter((m) => m.metric === metric)
    .reduce((a, m) => a + Number(m.self_value), 0);

describe("legacy pprof against go tool pprof", () => {
  for (const [name, metrics] of [
    ["google-pprof-cppbench.heap", ["inuse_objects", "inuse_space"]],
    ["google-pprof-cppbench.contention", ["contentions", "delay"]],
    ["google-pprof-go.crc32.cpu", ["samples", "cpu_time"]],
  ] as const) {
    test(`${name}: the same location addresses and column totals as pprof`, async () => {
      const e = await legacy(name);
      const want = REFERENCE[name]!;
      expect(new Set(rowsOf(e.tables.frames).map((f) => f.function))).toEqual(
        new Set(want.location_addresses),
      );
      // pprof merges a binary CPU profile's identical stacks into one sample; text lines are 1:1.
      if (!name.endsWith(".cpu")) expect(e.summary.samples).toBe(want.samples);
      expect(metrics.map((m) => selfTotal(e, m))).toEqual(want.totals);
    });
  }

  test(
    "a heap sample with no stack stays in the totals, on a (no stack) root, and is " + "reported",
    async () => {
      const text = [
        "heap profile:    3:     3000 [     3:     3000] @ heapprofile",
        "     1:     1000 [     1:     1000] @ 0x1000 0x2000",
        "     2:     2000 [     2:     2000] @",
        "",
      ].join("\n");
      const e = await extract("pprof-legacy", new TextEncoder().encode(text));
      expect(selfTotal(e, "inuse_objects")).toBe(3);
      expect(selfTotal(e, "inuse_space")).toBe(3000);
      const frames = rowsOf(e.tables.frames).map((f) => f.function);
      expect(frames).toContain("(no stack)");
      expect(e.limitations.find((l) => l.code === "samples_without_stack")?.count).toBe(1);
    },
  );
});

describe("benchmark importers keep what the producer wrote", () => {
  test("pyperf benchmark tags become the tags dimension", async () => {
    const e = await extract(
      "pyperf",
      loadPayload(corpusFile("pyperf", "pyperf-tests-mult_list_py37_tags.json").path),
    );
    const rows = rowsOf(e.tables.measurements);
    const tagsOf = (scope: string) =>
      new Set(
        rows
          .filter((r) => r.scope === scope)
          .map((r) => JSON.parse((r.dimensions_json as string) ?? "{}").tags),
      );
    expect(tagsOf("[1]*1000")).toEqual(new Set(["foo"]));
    expect(tagsOf("[1,2]*1000")).toEqual(new Set(["foo,bar"]));
    expect(tagsOf("[1,2,3]*1000")).toEqual(new Set(["bar"]));
  });

  test(
    "hyperfine seconds become whole nanoseconds " + "(value_int), equal to round(s × 1e9)",
    async () => {
      const path = corpusFile("hyperfine", "local-hyperfine-1.15.0-named-prepare.json").path;
      const doc = JSON.parse(readFileSync(path, "utf8")) as { results: { times: number[] }[] };
      const e = await extract("hyperfine", loadPayload(path));
      const samples = rowsOf(e.tables.measurements).filter(
        (r) => r.name === "wall_time" && r.aggregation === "sample",
      );
      expect(samples.map((r) => r.value_float)).toEqual(samples.map(() => null));
      expect(samples.map((r) => Number(r.value_int))).toEqual(
        doc.results[0]!.times.map((t) => Math.round(t * 1e9)),
      );
      expect(Number(samples[0]!.value_int)).toBe(2_950_318); // 0.00295031774 s
    },
  );
});

describe("default metric of a heap profile", () => {
  let ws: { root: string; cleanup: () => void };
  let service: WorkspaceService;
  beforeAll(async () => {
    ws = await tempWorkspace();
    service = await WorkspaceService.open({ workspace: ws.root });
  }, 60_000);
  afterAll(() => {
    service?.close();
    ws?.cleanup();
  });

  test("hotspots of a heap with allocation totals read inuse_space, as pprof shows by " +
    "default", async () => {
    // Allocation totals that differ from the in-use ones give all four pprof heap types.
    const text = [
      "heap profile:    1:     1000 [     4:     9000] @ heapprofile",
      "     1:     1000 [     4:     9000] @ 0x1000 0x2000",
      "",
    ].join("\n");
    const path = join(ws.root, "alloc.heap");
    writeFileSync(path, text);
    const imported = await service.importArtifact({ path });
    const hot = await service.analyzeHotspots(imported.artifact_id, { limit: 5 });
    expect(hot.metrics_available).toContain("alloc_objects");
    expect(hot.metric).toBe("inuse_space");
  }, 60_000);
});
