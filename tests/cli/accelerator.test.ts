/**
 * The accelerator-timeline recipe against SQL over the raw Nsight Systems export: per
 * stream (device, context, stream) the union of its kernel, copy and set intervals, the
 * device window, the idle gaps, and the launch latencies (runtime/driver call to device
 * start by correlation id) are computed here from the SQLite rows, not from the adapter.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WorkspaceService } from "../../src/application/workspace-service.ts";
import type { AcceleratorResult } from "../../src/analysis/accelerator/accelerator-timeline.ts";
import { corpusFiles } from "../adapters/corpus-files.ts";
import { smallExport } from "../adapters/nsys-export.ts";
import { cli, tempDir } from "../helpers.ts";
import { useWorkspaceService } from "../service-fixture.ts";

let service: WorkspaceService;
let root: string;
useWorkspaceService((s, r) => ((service = s), (root = r)));
const scratch = tempDir("flameox-accel-");
afterAll(() => scratch.cleanup());

interface Reference {
  busy: Map<string, number>;
  window: { start: number; end: number };
  gaps: number[];
  latencies: number[];
  unmatched: number;
}

function tables(db: Database): Set<string> {
  return new Set(
    (
      db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((r) => r.name),
  );
}

/** The figures from the export's own rows. */
function reference(bytes: Uint8Array, minGap: number): Reference {
  const db = Database.deserialize(bytes, { readonly: true });
  try {
    const have = tables(db);
    const device = [
      "CUPTI_ACTIVITY_KIND_KERNEL",
      "CUPTI_ACTIVITY_KIND_MEMCPY",
      "CUPTI_ACTIVITY_KIND_MEMSET",
    ].filter((t) => have.has(t));
    const rows = db
      .query(
        device
          .map(
            (t) =>
              `SELECT deviceId AS d, contextId AS c, streamId AS s, start, "end" AS e, ` +
              `correlationId AS k FROM ${t} WHERE "end" >= start`,
          )
          .join(" UNION ALL "),
      )
      .all() as { d: number; c: number; s: number; start: number; e: number; k: number | null }[];
    const byStream = Map.groupBy(rows, (r) => `${r.d}/${r.c}/${r.s}`);
    const busy = new Map<string, number>();
    const gaps: number[] = [];
    for (const [key, list] of byStream) {
      list.sort((a, b) => a.start - b.start || a.e - b.e);
      let total = 0;
      let from = list[0]!.start;
      let to = list[0]!.e;
      for (const r of list.slice(1)) {
        if (r.start <= to) to = Math.max(to, r.e);
        else {
          total += to - from;
          if (r.start - to >= minGap) gaps.push(r.start - to);
          from = r.start;
          to = r.e;
        }
      }
      busy.set(key, total + (to - from));
    }
    const launchTables = ["CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"].filter((t) =>
      have.has(t),
    );
    const launches = new Map<number, number>();
    if (launchTables.length > 0) {
      for (const r of db
        .query(
          "SELECT correlationId AS k, min(start) AS at FROM (" +
            launchTables
              .map((t) => `SELECT correlationId, start FROM ${t} WHERE correlationId IS NOT NULL`)
              .join(" UNION ALL ") +
            ") GROUP BY correlationId",
        )
        .all() as { k: number; at: number }[])
        launches.set(r.k, r.at);
    }
    const latencies: number[] = [];
    let unmatched = 0;
    for (const r of rows) {
      const at = r.k === null ? undefined : launches.get(r.k);
      if (at === undefined) unmatched++;
      else latencies.push(r.start - at);
    }
    return {
      busy,
      gaps: gaps.sort((a, b) => b - a),
      latencies: latencies.sort((a, b) => a - b),
      unmatched,
      window: {
        start: Math.min(...rows.map((r) => r.start)),
        end: Math.max(...rows.map((r) => r.e)),
      },
    };
  } finally {
    db.close();
  }
}

const nearestRank = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;

async function allStreams(
  ref: string,
  minGapNs: number,
): Promise<{ first: AcceleratorResult; items: AcceleratorResult["items"] }> {
  const first = await service.recipes().analyzeAcceleratorTimeline(ref, { minGapNs, limit: 1 });
  const items = [...first.items];
  for (let cursor = first.next_cursor; cursor; ) {
    const page = await service
      .recipes()
      .analyzeAcceleratorTimeline(ref, { minGapNs, limit: 1, cursor });
    items.push(...page.items);
    cursor = page.next_cursor;
  }
  return { first, items };
}

function expectAgrees(
  result: AcceleratorResult,
  items: AcceleratorResult["items"],
  ref: Reference,
): void {
  const streamKey = (trackId: string) => {
    const m = /^gpu(\d+):pid\d+\.ctx(\d+)\.stream(\d+)$/.exec(trackId);
    return m ? `${m[1]}/${m[2]}/${m[3]}` : trackId;
  };
  expect(new Map(items.map((s) => [streamKey(s.track_id), s.busy_ns]))).toEqual(ref.busy);
  const span = ref.window.end - ref.window.start;
  expect(result.window!.span_ns).toBe(span);
  for (const s of items)
    expect(s.busy_fraction).toBeCloseTo(ref.busy.get(streamKey(s.track_id))! / span, 12);
  expect(items.reduce((n, s) => n + s.idle_gaps, 0)).toBe(ref.gaps.length);
  expect(result.gaps.map((g) => g.duration_ns)).toEqual(ref.gaps.slice(0, 20));
  if (ref.latencies.length === 0) return;
  expect(result.launch_latency).toEqual({
    matched: ref.latencies.length,
    unmatched: ref.unmatched,
    min_ns: ref.latencies[0]!,
    p50_ns: nearestRank(ref.latencies, 0.5),
    p90_ns: nearestRank(ref.latencies, 0.9),
    p99_ns: nearestRank(ref.latencies, 0.99),
    max_ns: ref.latencies.at(-1)!,
  });
}

describe("analyze accelerator", () => {
  test("a small export: busy time, gaps with the host's slices, launch latency equal the SQL " +
    "over its rows", async () => {
    const bytes = smallExport();
    const path = join(scratch.path, "small.sqlite");
    writeFileSync(path, bytes);
    const imported = await service.importArtifact({ path });
    const { first, items } = await allStreams(imported.artifact_id, 50);
    expect(["available", "partial"]).toContain(first.evidence.status);
    expectAgrees(first, items, reference(bytes, 50));
    // Stream 7: copy 50-90, kernels 150-250 and 410-415; stream 13: kernel 340-400.
    expect(items.map((s) => [s.stream, s.busy_ns, s.kernels, s.activities])).toEqual([
      ["stream 7 (pid 4242, context 1)", 145, 2, 3],
      ["stream 13 (pid 4242, context 1)", 60, 1, 1],
    ]);
    // The gap 250-410 on stream 7: the host's top-level slice then is the NVTX range "outer".
    expect(first.gaps[0]).toMatchObject({
      duration_ns: 160,
      host: [{ name: "outer", overlap_ns: 160 }],
    });
    expect(first.launch_latency).toMatchObject({
      matched: 2,
      unmatched: 2,
      min_ns: 40,
      max_ns: 50,
    });

    // The CLI prints the same figures as text and as JSON.
    const text = await cli(["analyze", "accelerator", imported.artifact_id, "--min-gap-ns", "50"], {
      cwd: root,
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("launch latency (2 matched, 2 unmatched)");
    const json = await cli(
      ["analyze", "accelerator", imported.artifact_id, "--min-gap-ns", "50", "--json"],
      { cwd: root },
    );
    expect(json.json.gaps).toEqual(first.gaps);
    const bad = await cli(
      ["analyze", "accelerator", imported.artifact_id, "--min-gap-ns", "1ms", "--json"],
      { cwd: root },
    );
    expect(bad.json.error.code).toBe("INVALID_ARGUMENTS");
  }, 60_000);

  test("a trace without device activity is empty, not zero", async () => {
    const file = corpusFiles("cpuprofile")[0]!;
    const imported = await service.importArtifact({ path: file.path });
    const result = await service.recipes().analyzeAcceleratorTimeline(imported.artifact_id, {});
    expect(result.evidence.status).not.toBe("available");
    expect(result.items).toEqual([]);
  }, 60_000);

  test("every Nsight export of the corpus agrees with SQL over its rows", async () => {
    const files = corpusFiles("nsys-sqlite").filter((f) => f.name.endsWith(".sqlite"));
    for (const file of files) {
      const bytes = readFileSync(file.path);
      const imported = await service.importArtifact({ path: file.path });
      const { first, items } = await allStreams(imported.artifact_id, 1_000_000);
      expectAgrees(first, items, reference(bytes, 1_000_000));
    }
    // Without the external lane there is no real export here; the small export above still runs.
    if (files.length === 0)
      console.log(
        "accelerator timeline: no Nsight export in this lane (the external lane has two)",
      );
  }, 240_000);
});
