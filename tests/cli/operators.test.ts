/**
 * The operator breakdown of torch.profiler (Kineto) traces: a hand-built trace whose
 * figures are worked out here by hand (nesting, recursion, a kernel no operator launched),
 * and the corpus's real Kineto traces against counts and sums taken from their raw JSON.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { WorkspaceService } from "../../src/application/workspace-service.ts";
import type { OperatorRow } from "../../src/analysis/accelerator/operator-breakdown.ts";
import { corpusFiles } from "../adapters/corpus-files.ts";
import { cli, tempDir } from "../helpers.ts";
import { useWorkspaceService } from "../service-fixture.ts";

let service: WorkspaceService;
let root: string;
useWorkspaceService((s, r) => ((service = s), (root = r)));
const scratch = tempDir("flameox-ops-");
afterAll(() => scratch.cleanup());

const op = (name: string, ts: number, dur: number) => ({
  ph: "X",
  cat: "cpu_op",
  name,
  pid: 1,
  tid: 1,
  ts,
  dur,
});
const launch = (ts: number, dur: number, correlation: number) => ({
  ph: "X",
  cat: "cuda_runtime",
  name: "cudaLaunchKernel",
  pid: 1,
  tid: 1,
  ts,
  dur,
  args: { correlation },
});
const kernel = (name: string, ts: number, dur: number, correlation: number) => ({
  ph: "X",
  cat: "kernel",
  name,
  pid: 0,
  tid: 7,
  ts,
  dur,
  args: { correlation, stream: 7 },
});

async function allOperators(ref: string): Promise<OperatorRow[]> {
  const items: OperatorRow[] = [];
  let cursor: string | null = null;
  do {
    const page = await service.recipes().analyzeOperators(ref, { limit: 2, cursor });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

describe("analyze operators", () => {
  test("nesting, recursion and unattributed kernels, worked out by hand", async () => {
    // Times in µs. linear [0,100] calls matmul [10,60], which launches k1 (corr 1, 50 µs), and add
    // [70,90], which launches k2 (10 µs);
    // copy_ [100,150] calls copy_ [110,130] which launches k3 (20 µs); k4 (corr 99, 5 µs) has no
    // launch.
    const trace = {
      traceEvents: [
        op("aten::linear", 0, 100),
        op("aten::matmul", 10, 50),
        launch(20, 5, 1),
        op("aten::add", 70, 20),
        launch(75, 3, 2),
        op("aten::copy_", 100, 50),
        op("aten::copy_", 110, 20),
        launch(115, 2, 3),
        kernel("gemm", 30, 50, 1),
        kernel("add_kernel", 85, 10, 2),
        kernel("copy_kernel", 140, 20, 3),
        kernel("stray", 200, 5, 99),
      ],
    };
    const path = join(scratch.path, "ops.pt.trace.json");
    writeFileSync(path, JSON.stringify(trace));
    const imported = await service.importArtifact({ path });
    const result = await service.recipes().analyzeOperators(imported.artifact_id, { limit: 50 });
    const us = 1000;
    const byName = (rows: [string, unknown][]) =>
      new Map(rows.sort((a, b) => a[0].localeCompare(b[0])));
    expect(byName((await allOperators(imported.artifact_id)).map((o) => [o.name, o]))).toEqual(
      byName([
        // Self: 100 less matmul's 50 and add's 20; GPU total: what matmul and add launched.
        [
          "aten::linear",
          {
            name: "aten::linear",
            calls: 1,
            cpu_total_ns: 100 * us,
            cpu_self_ns: 30 * us,
            gpu_self_ns: 0,
            gpu_total_ns: 60 * us,
            launches: 0,
          },
        ],
        [
          "aten::matmul",
          {
            name: "aten::matmul",
            calls: 1,
            cpu_total_ns: 50 * us,
            cpu_self_ns: 50 * us,
            gpu_self_ns: 50 * us,
            gpu_total_ns: 50 * us,
            launches: 1,
          },
        ],
        [
          "aten::add",
          {
            name: "aten::add",
            calls: 1,
            cpu_total_ns: 20 * us,
            cpu_self_ns: 20 * us,
            gpu_self_ns: 10 * us,
            gpu_total_ns: 10 * us,
            launches: 1,
          },
        ],
        // The inner copy_ is inside the outer one: its time counts once in the total, and its self
        // time is its own.
        [
          "aten::copy_",
          {
            name: "aten::copy_",
            calls: 2,
            cpu_total_ns: 50 * us,
            cpu_self_ns: 50 * us,
            gpu_self_ns: 20 * us,
            gpu_total_ns: 20 * us,
            launches: 1,
          },
        ],
      ]),
    );
    expect(result.totals).toEqual({
      operators: 4,
      calls: 5,
      gpu_ns: 85 * us,
      gpu_unattributed_ns: 5 * us,
      device_activities: 4,
    });
    // By CPU total, then GPU total.
    expect(result.items.map((o) => o.name)).toEqual([
      "aten::linear",
      "aten::matmul",
      "aten::copy_",
      "aten::add",
    ]);
    const text = await cli(["analyze", "operators", imported.artifact_id], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("launched by no operator");
  }, 60_000);

  test("corpus Kineto traces: calls per operator and the GPU time split equal the raw " +
    "JSON", async () => {
    let compared = 0;
    for (const file of [...corpusFiles("chrome-trace")].filter((f) =>
      /kineto|pt\.trace/.test(f.name),
    )) {
      const raw = readFileSync(file.path);
      const doc = JSON.parse(new TextDecoder().decode(raw[0] === 0x1f ? gunzipSync(raw) : raw)) as
        | { traceEvents?: Record<string, unknown>[] }
        | Record<string, unknown>[];
      const events = (Array.isArray(doc) ? doc : (doc.traceEvents ?? [])).filter(
        (e) => e.ph === "X" && typeof e.dur === "number",
      );
      const ops = events.filter((e) => e.cat === "cpu_op");
      if (ops.length === 0) continue;
      const imported = await service.importArtifact({ path: file.path });
      const items = await allOperators(imported.artifact_id);
      const calls = new Map<string, number>();
      for (const e of ops) calls.set(String(e.name), (calls.get(String(e.name)) ?? 0) + 1);
      expect(new Map(items.map((o) => [o.name, o.calls]))).toEqual(calls);
      const result = await service.recipes().analyzeOperators(imported.artifact_id, { limit: 1 });
      const deviceNs = events
        .filter((e) => ["kernel", "gpu_memcpy", "gpu_memset"].includes(String(e.cat)))
        .reduce((n, e) => n + Math.round((e.dur as number) * 1000), 0);
      // Durations are stored in whole ns; the sum matches within a ns per activity.
      expect(Math.abs(result.totals.gpu_ns - deviceNs)).toBeLessThanOrEqual(
        result.totals.device_activities,
      );
      expect(items.reduce((n, o) => n + o.gpu_self_ns, 0) + result.totals.gpu_unattributed_ns).toBe(
        result.totals.gpu_ns,
      );
      for (const o of items) {
        expect(o.cpu_self_ns).toBeLessThanOrEqual(o.cpu_total_ns);
        expect(o.gpu_self_ns).toBeLessThanOrEqual(o.gpu_total_ns);
      }
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
  }, 240_000);
});
