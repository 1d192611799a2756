/**
 * Frame-level correlation of scaling against an independent computation. Ten synthetic
 * V8 CPU profiles (5 input sizes × 2 blocks, 1 ms per sample) go through the real import
 * path; in them `grows` gets quadratically more samples with input, `shrinks` fewer,
 * `flat` about the same, and `main` exactly the same. Expected ρ and p are scipy's:
 *
 *   from scipy.stats import spearmanr
 *   xs = [100, 200, 400, 800, 1600] * 2
 *   spearmanr(xs, [3, 8, 20, 60, 200, 4, 9, 21, 61, 201])        # 0.9847319278346618,
 *   2.334186320787442e-07
 *   spearmanr(xs, [20, 23, 19, 22, 21, 22, 19, 23, 21, 20])      # -0.05, 0.8908980275878906
 *   spearmanr(xs, [100, 60, 30, 12, 5, 99, 61, 31, 11, 6])       # -0.9847319278346618,
 *   2.334186320787442e-07
 *
 * and the q-values are Benjamini–Hochberg computed here by hand over the tested family.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { frameCorrelations, type ProfiledTrial } from "../../src/analysis/frame-correlation.ts";
import { SnapshotHandle } from "../../src/storage/snapshot.ts";
import { tempDir } from "../helpers.ts";

const INPUTS = [100, 200, 400, 800, 1600, 100, 200, 400, 800, 1600];
const COUNTS = {
  grows: [3, 8, 20, 60, 200, 4, 9, 21, 61, 201],
  flat: [20, 23, 19, 22, 21, 22, 19, 23, 21, 20],
  shrinks: [100, 60, 30, 12, 5, 99, 61, 31, 11, 6],
};
const SCIPY = {
  grows: { rho: 0.9847319278346618, p: 2.334186320787442e-7 },
  flat: { rho: -0.05, p: 0.8908980275878906 },
  shrinks: { rho: -0.9847319278346618, p: 2.334186320787442e-7 },
};
const MAIN_SAMPLES = 5;

/**
 * root → main → {grows, flat, shrinks}; every sample 1000 µs apart, `main` samples first and last.
 */
function profile(counts: Record<keyof typeof COUNTS, number>): string {
  const frame = (id: number, name: string, line: number, children: number[]) => ({
    id,
    callFrame: {
      functionName: name,
      scriptId: "1",
      url: "file:///app/work.js",
      lineNumber: line,
      columnNumber: 0,
    },
    hitCount: 0,
    children,
  });
  const nodes = [
    {
      id: 1,
      callFrame: {
        functionName: "(root)",
        scriptId: "0",
        url: "",
        lineNumber: -1,
        columnNumber: -1,
      },
      hitCount: 0,
      children: [2],
    },
    frame(2, "main", 1, [3, 4, 5]),
    frame(3, "grows", 10, []),
    frame(4, "flat", 20, []),
    frame(5, "shrinks", 30, []),
  ];
  const samples = [
    ...Array(Math.ceil(MAIN_SAMPLES / 2)).fill(2),
    ...Array(counts.grows).fill(3),
    ...Array(counts.flat).fill(4),
    ...Array(counts.shrinks).fill(5),
    ...Array(Math.floor(MAIN_SAMPLES / 2)).fill(2),
  ];
  const timeDeltas = samples.map(() => 1000);
  return JSON.stringify({
    nodes,
    startTime: 0,
    endTime: samples.length * 1000,
    samples,
    timeDeltas,
  });
}

let dir: { path: string; cleanup: () => void };
let service: WorkspaceService;
const trials: ProfiledTrial[] = [];

beforeAll(async () => {
  dir = tempDir("flameox-framecorr-");
  await WorkspaceService.init(dir.path);
  service = await WorkspaceService.open({ workspace: dir.path });
  for (const [i, input] of INPUTS.entries()) {
    const path = join(dir.path, `trial-${i}.cpuprofile`);
    writeFileSync(
      path,
      profile({ grows: COUNTS.grows[i]!, flat: COUNTS.flat[i]!, shrinks: COUNTS.shrinks[i]! }),
    );
    const imported = await service.importArtifact({ path });
    trials.push({ run_id: imported.run_id, variant: "v", input });
  }
}, 60_000);
afterAll(() => {
  service?.close();
  dir?.cleanup();
});

/**
 * Benjamini–Hochberg by its definition: q(i) = min over j with p(j) ≥ p(i) of min(1,
 * m·p(j)/rank(j)).
 */
function bhByHand(ps: number[]): number[] {
  const m = ps.length;
  const rank = (p: number) => ps.filter((x) => x <= p).length;
  return ps.map((p) => Math.min(1, ...ps.filter((x) => x >= p).map((x) => (m * x) / rank(x))));
}

describe("frame correlations", () => {
  test(
    "a frame growing with input is flagged; flat and shrinking ones are not; values " +
      "match scipy",
    async () => {
      const result = await frameCorrelations(SnapshotHandle.pin(service.ws.paths), trials);
      if (result.status === "unavailable") throw new Error(result.reason);
      expect(result).toMatchObject({
        status: "available",
        metric: "cpu_time",
        measure: "self_value",
        profiled_trials: 10,
        unprofiled_trials: 0,
      });
      const v = result.variants[0]!;
      const byName = new Map(v.frames.map((f) => [f.function, f]));
      // main has the same self time in every trial: no rank correlation, so not tested.
      expect(byName.has("main")).toBe(false);
      expect(v.note).toMatch(/same self time/);
      const tested = ["grows", "flat", "shrinks"] as const;
      expect(v.family_size).toBe(tested.length);
      const q = bhByHand(tested.map((name) => SCIPY[name].p));
      for (const [i, name] of tested.entries()) {
        const f = byName.get(name)!;
        expect(f.rho).toBeCloseTo(SCIPY[name].rho, 12);
        expect(Math.abs(f.p_value - SCIPY[name].p) / SCIPY[name].p).toBeLessThan(1e-6);
        expect(Math.abs(f.q_value - q[i]!) / q[i]!).toBeLessThan(1e-6);
        expect(f.trials_present).toBe(10);
      }
      expect(byName.get("grows")!.grows_with_input).toBe(true);
      expect(byName.get("flat")!.grows_with_input).toBe(false);
      // Significant but negative: cost falls with input, which is not growth.
      expect(byName.get("shrinks")!.q_value).toBeLessThan(0.05);
      expect(byName.get("shrinks")!.grows_with_input).toBe(false);
      expect(v.flagged).toBe(1);
      expect(v.frames[0]!.function).toBe("grows");
      // Self time per input is read from the corpus: 1 ms per sample, in ns.
      expect(byName.get("grows")!.median_self_by_input).toEqual([
        { input: 100, value: 3.5e6 },
        { input: 200, value: 8.5e6 },
        { input: 400, value: 20.5e6 },
        { input: 800, value: 60.5e6 },
        { input: 1600, value: 200.5e6 },
      ]);
    },
  );

  test(
    "trials without profiles are left out and named; none at all is unavailable, not 'no " +
      "growth'",
    async () => {
      const snapshot = SnapshotHandle.pin(service.ws.paths);
      const partial = await frameCorrelations(snapshot, [
        ...trials,
        { run_id: "run_without_profile", variant: "v", input: 3200 },
      ]);
      expect(partial.status).toBe("partial");
      if (partial.status !== "unavailable") expect(partial.unprofiled_trials).toBe(1);
      const none = await frameCorrelations(snapshot, [
        { run_id: "run_a", variant: "v", input: 1 },
        { run_id: "run_b", variant: "v", input: 2 },
      ]);
      expect(none).toEqual({
        status: "unavailable",
        reason: expect.stringContaining("no profile evidence"),
      });
    },
  );
});
