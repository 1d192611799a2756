/**
 * A real `perf` capture ends with hotspots: perf records a C program and a Node.js
 * program, `perf script` renders the samples, the perf-script extractor publishes them,
 * and hotspots name the hot function. Node runs with --perf-basic-prof, so its JIT frames
 * have names. Where perf cannot run here, the capability must say why.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CapabilitiesResult } from "../../src/application/capture/capture-service.ts";
import { type CaptureProject, captureProject } from "./capture-helpers.ts";

const TOML = `
[workloads.hot-js]
argv = ["node", "workloads/hot.js", "600"]
timeout_seconds = 60

[workloads.hot-c]
argv = ["./workloads/hot", "400"]
timeout_seconds = 60
`;

let p: CaptureProject;
let caps: CapabilitiesResult;
let compiled = false;

beforeAll(async () => {
  p = await captureProject(TOML);
  const cc = Bun.which("cc") ?? Bun.which("gcc");
  if (cc) {
    const built = Bun.spawnSync([
      cc,
      "-O1",
      "-fno-omit-frame-pointer",
      "-o",
      join(p.root, "workloads", "hot"),
      join(p.root, "workloads", "hot.c"),
    ]);
    compiled = built.exitCode === 0;
  }
  caps = await (await p.service.capture()).capabilities("active_refresh");
}, 60_000);
afterAll(() => p.cleanup());

function perfAvailable(): boolean {
  const report = caps.adapters.find((a) => a.name === "perf")!;
  if (report.status === "available") return true;
  // Not available must be explained, and an installed perf can only be refused or incompatible.
  expect(report.reason.length).toBeGreaterThan(0);
  expect(Bun.which("perf") ? ["permission_required", "incompatible"] : ["absent"]).toContain(
    report.status,
  );
  return false;
}

describe("perf capture → perf-script extraction → hotspots", () => {
  test("a C program: the hot function tops the hotspots, by CPU time", async () => {
    if (!perfAvailable()) return;
    expect(compiled).toBe(true);
    const result = await (await p.service.capture()).run({
      adapter: "perf",
      workload: "hot-c",
      adapterOptions: { frequency_hz: 499 },
    });
    expect(result).toMatchObject({
      execution_status: "succeeded",
      extraction_status: "published",
      next_tool: "analyze_hotspots",
    });
    expect(result.extractions.find((e) => e.adapter === "perf-script")).toBeDefined();
    expect(result.limitations.map((l) => l.code)).not.toContain("no_perf_extractor");
    const hotspots = await p.service.analyzeHotspots(result.run_id, { limit: 3 });
    expect(hotspots.metric).toBe("cpu_time");
    expect(hotspots.items[0]!.function).toBe("burn_hotspot");
    expect(hotspots.items[0]!.self_fraction).toBeGreaterThan(0.5);
  }, 90_000);

  test("a Node.js program runs with --perf-basic-prof (declared) and its JavaScript frames are " +
    "named", async () => {
    if (!perfAvailable()) return;
    const capture = await p.service.capture();
    const result = await capture.run({
      adapter: "perf",
      workload: "hot-js",
      adapterOptions: { frequency_hz: 499 },
    });
    expect(result).toMatchObject({ execution_status: "succeeded", extraction_status: "published" });
    expect(result.limitations.map((l) => l.code)).toContain("perf_basic_prof");
    const hotspots = await p.service.analyzeHotspots(result.run_id, { limit: 5 });
    const burn = hotspots.items.find((h) => h.function === "burnHotspot");
    expect(burn).toBeDefined();
    expect(burn!.language).toBe("javascript");
    expect(burn!.file).toEndWith("workloads/hot.js");
    expect(hotspots.items[0]!.function).toBe("burnHotspot");
  }, 90_000);
});
