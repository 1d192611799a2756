/**
 * Every file of the two import formats in the shared corpus goes through the real import
 * path (CAS, parse worker process, Parquet generation, commit) and the hotspots recipe,
 * and the recipe's per-function self time agrees with an independent computation from
 * the raw samples or events.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import type { FrameMetric } from "../../src/domain/evidence-schema.ts";
import { corpusFiles, loadPayload } from "../adapters/corpus-files.ts";
import {
  embeddedProfiles,
  functionKey,
  rawProfileOf,
  referenceCpuSelf,
  type ReferenceCpuSelf,
} from "../adapters/reference-cpuprofile.ts";
import { referenceSelfByName } from "../adapters/reference-trace.ts";
import { tempWorkspace } from "../helpers.ts";

let service: WorkspaceService;
let cleanup: () => void;

beforeAll(async () => {
  const ws = await tempWorkspace();
  cleanup = ws.cleanup;
  service = await WorkspaceService.open({ workspace: ws.root });
});
afterAll(() => {
  service.close();
  cleanup();
});

/** Self ns per key over every page of the recipe's result. */
async function hotspotSelf(
  artifactId: string,
  metric: FrameMetric,
  key: (h: { function: string; file: string | null }) => string,
) {
  const totals = new Map<string, number>();
  let cursor: string | null = null;
  let total = 0;
  do {
    const page = await service.analyzeHotspots(artifactId, { limit: 1000, cursor, metric });
    expect(page.corpus_commit_id).toMatch(/^sha256:/);
    for (const h of page.items) totals.set(key(h), (totals.get(key(h)) ?? 0) + h.self_value);
    total = page.coverage.total_self_value;
    cursor = page.next_cursor;
  } while (cursor);
  return { totals, total };
}

function expectAgreement(
  mine: Map<string, number>,
  reference: Map<string, { ns: number; slack: number }>,
) {
  const positive = new Map([...mine].filter(([, v]) => v > 0));
  const refPositive = new Map([...reference].filter(([, v]) => Math.round(v.ns) > 0));
  expect([...positive.keys()].sort()).toEqual([...refPositive.keys()].sort());
  for (const [key, ref] of refPositive)
    expect(Math.abs(positive.get(key)! - ref.ns)).toBeLessThanOrEqual(ref.slack);
}

function cpuReference(
  profiles: ReturnType<typeof rawProfileOf>[],
): Map<string, { ns: number; slack: number }> {
  const sums = new Map<string, ReferenceCpuSelf>();
  for (const profile of profiles) {
    for (const [key, value] of referenceCpuSelf(profile)) {
      const entry = sums.get(key) ?? { selfUs: 0, samples: 0 };
      entry.selfUs += value.selfUs;
      entry.samples += value.samples;
      sums.set(key, entry);
    }
  }
  return new Map([...sums].map(([k, v]) => [k, { ns: v.selfUs * 1000, slack: v.samples }]));
}

const byFunctionAndFile = (h: { function: string; file: string | null }) =>
  functionKey(h.function, h.file);

describe("corpus through import and the hotspots recipe", () => {
  for (const file of corpusFiles("cpuprofile")) {
    test(`cpuprofile ${file.name}`, async () => {
      const imported = await service.importArtifact({ path: file.path });
      expect(imported.extraction.adapter).toBe("v8-cpuprofile");
      const raw = rawProfileOf(JSON.parse(new TextDecoder().decode(loadPayload(file.path))));
      const { totals } = await hotspotSelf(imported.artifact_id, "cpu_time", byFunctionAndFile);
      expectAgreement(totals, cpuReference([raw]));
    });
  }

  for (const file of corpusFiles("chrome-trace")) {
    test(`chrome-trace ${file.name}`, async () => {
      const imported = await service.importArtifact({ path: file.path });
      expect(imported.extraction.adapter).toBe("chrome-trace");
      const text = new TextDecoder().decode(loadPayload(file.path));
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = JSON.parse(`${text.trim().replace(/,$/, "")}]`);
      }
      const events = (
        Array.isArray(value) ? value : (value as { traceEvents: unknown[] }).traceEvents
      ) as Record<string, unknown>[];
      const wall = await hotspotSelf(imported.artifact_id, "wall_time", (h) => h.function);
      const reference = new Map(
        [...referenceSelfByName(events)].map(([name, r]) => [
          name,
          { ns: r.selfUs * 1000, slack: r.segments + r.slices },
        ]),
      );
      expectAgreement(wall.totals, reference);
      const profiles = embeddedProfiles(events);
      if (profiles.length > 0) {
        const cpu = await hotspotSelf(imported.artifact_id, "cpu_time", byFunctionAndFile);
        expectAgreement(cpu.totals, cpuReference(profiles));
        // Sampled CPU time is what the recipe shows first when a trace carries it.
        expect((await service.analyzeHotspots(imported.artifact_id, { limit: 1 })).metric).toBe(
          "cpu_time",
        );
      }
    });
  }
});
