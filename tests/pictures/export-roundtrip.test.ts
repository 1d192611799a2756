/**
 * Every profile of the corpus (this lane's files of each stack-bearing format) exported as
 * collapsed stacks, speedscope and pprof, and imported back, gives the same self value per
 * function as the original's hotspots. The comparison is by function name: exports keep
 * names (speedscope and pprof also files and lines), and hotspots rows of one name are summed.
 *
 * Each file costs four imports (a parse worker each), so the sweep over every vendored file
 * is a heavy case: the default lane keeps the first file of each format (every source format
 * and every export still round-trips), the heavy lane runs the others, and the external
 * lane, whose point is the sweep, runs every file.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WorkspaceService } from "../../src/application/workspace-service.ts";
import type { FrameMetric } from "../../src/domain/evidence-schema.ts";
import { corpusFiles, EXTERNAL_CORPUS } from "../adapters/corpus-files.ts";
import { heavyTest } from "../helpers.ts";
import { useWorkspaceService } from "../service-fixture.ts";

const FORMATS = [
  "cpuprofile",
  "heapprofile",
  "pprof",
  "pprof-legacy",
  "perf-script",
  "collapsed-stacks",
  "speedscope",
  "gecko",
  "fxprofiler-processed",
  "massif",
  "dhat",
];
/**
 * Formats whose every file their own adapter tests check: one file each here keeps this suite
 * short.
 */
const ONE_EACH = new Set(["gecko", "fxprofiler-processed", "massif", "dhat"]);
const files = FORMATS.flatMap((format) =>
  corpusFiles(format)
    .slice(0, ONE_EACH.has(format) ? 1 : undefined)
    .map((f) => ({ ...f, format })),
);
const firstOfEachFormat = new Set(
  FORMATS.map((format) => files.find((f) => f.format === format)?.path),
);
const inThisLane = (path: string) => EXTERNAL_CORPUS !== null || firstOfEachFormat.has(path);

let root: string;
let service: WorkspaceService;
useWorkspaceService((s, r) => ((service = s), (root = r)));

async function selfByFunction(
  subject: string,
  metric?: FrameMetric,
): Promise<{ metric: string | null; byName: [string, number][] }> {
  const byName = new Map<string, number>();
  let cursor: string | null = null;
  let chosen: string | null = null;
  do {
    const page = await service.analyzeHotspots(subject, { limit: 1000, cursor, metric });
    chosen = page.metric;
    for (const h of page.items)
      byName.set(h.function, (byName.get(h.function) ?? 0) + h.self_value);
    cursor = page.next_cursor;
  } while (cursor);
  return {
    metric: chosen,
    byName: [...byName]
      .filter(([, v]) => v !== 0)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
  };
}

/**
 * The metric a re-import files the exported values under: collapsed stacks carry bare
 * numbers (samples), speedscope only a unit, pprof a sample type name, so the importer's
 * metric can differ from the original's. It is the metric whose total equals the original
 * total; the per-function values must then match exactly.
 */
async function metricWithTotal(subject: string, total: number): Promise<FrameMetric | null> {
  const first = await service.analyzeHotspots(subject, { limit: 1 });
  for (const metric of first.metrics_available) {
    if (
      (await service.analyzeHotspots(subject, { limit: 1, metric })).coverage.total_self_value ===
      total
    )
      return metric;
  }
  return null;
}

function collapsedNames(rows: [string, number][]): [string, number][] {
  const merged = new Map<string, number>();
  for (const [name, value] of rows) {
    const safe = name.replace(/[;\r\n]/g, "_");
    merged.set(safe, (merged.get(safe) ?? 0) + value);
  }
  return [...merged].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

describe("exports of every corpus profile import back with the same hotspots", () => {
  test("the lane has profiles of every stack-bearing format", () => {
    expect(new Set(files.map((f) => f.format))).toEqual(new Set(FORMATS));
  });
  for (const file of files) {
    (inThisLane(file.path) ? test : heavyTest)(
      `${file.format}/${file.name}`,
      async () => {
        const imported = await service.importArtifact({ path: file.path });
        const original = await selfByFunction(imported.artifact_id);
        const total = (await service.analyzeHotspots(imported.artifact_id, { limit: 1 })).coverage
          .total_self_value;
        expect(original.metric).not.toBeNull();
        expect(original.byName.length).toBeGreaterThan(0);
        for (const format of ["collapsed", "speedscope", "pprof"] as const) {
          const exported = await service.views().exportProfile({
            subject: imported.artifact_id,
            format,
            metric: original.metric as FrameMetric,
          });
          const out = join(root, `${file.format}-${file.name}.${format}`);
          writeFileSync(out, exported.bytes);
          const back = await service.importArtifact({ path: out });
          const metric = await metricWithTotal(back.artifact_id, total);
          expect({ format, metric: metric !== null }).toEqual({ format, metric: true });
          const again = await selfByFunction(back.artifact_id, metric!);
          // Collapsed stacks cannot carry `;` or a line break inside a name (they separate frames
          // and stacks); the export replaces them with `_`, so the comparison does too.
          const expected =
            format === "collapsed" ? collapsedNames(original.byName) : original.byName;
          expect({ format, byName: again.byName }).toEqual({ format, byName: expected });
        }
      },
      120_000,
    );
  }
});
