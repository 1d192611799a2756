/**
 * Capture adapters against the real host tools. Where a tool is installed the real path
 * runs; where it is not, the capability must say so with a reason (never a silent pass).
 * Installed but refused by the kernel is only acceptable as permission_required (perf).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { CapabilitiesResult } from "../../src/application/capture/capture-service.ts";
import type { CapabilityReport } from "../../src/domain/capture.ts";
import { type CaptureProject, captureProject } from "./capture-helpers.ts";

const TOML = `
[workloads.hot]
argv = ["node", "workloads/hot.js", "200"]
timeout_seconds = 60

[workloads.alloc]
argv = ["node", "workloads/allocate.js", "8"]

[workloads.bun-alloc]
argv = ["bun", "workloads/allocate.js", "8"]
environment = { PATH = "${dirname(process.execPath)}:/usr/bin:/bin" }

[workloads.sandboxed]
argv = ["node", "-e", "const fs=require('fs');fs.writeFileSync('out/ok.txt','ok');for(const p of \
['escape.txt','.diagnostics/x']){try{fs.writeFileSync(p,'x');console.log('wrote',\
p)}catch(e){console.log('refused',p,e.code)}}try{console.log('store',\
fs.readdirSync('.diagnostics').length)}catch(e){console.log('store',\
e.code)}require('net').connect(80,'1.1.1.1').on('error',e=>console.log('net',e.code)).on('connect',\
()=>console.log('net connected'))"]
writable_paths = ["out"]
timeout_seconds = 20
`;

let p: CaptureProject;
let caps: CapabilitiesResult;
const cap = (name: string): CapabilityReport =>
  caps.adapters.find((a) => a.name === name) ?? caps.containment;
const installed = (tool: string) => Bun.which(tool) !== null;
const stdoutOf = (result: { artifacts: { role: string; artifact_id: string }[] }) =>
  p.bytes(result.artifacts.find((a) => a.role === "stdout")!.artifact_id).toString();

beforeAll(async () => {
  p = await captureProject(TOML);
  caps = await (await p.service.capture()).capabilities("active_refresh");
}, 60_000);
afterAll(() => p.cleanup());

/** Either the capability is available (returns true: run the real path) or it is explained. */
function availableOr(name: string, tool: string, allowed: CapabilityReport["status"][]): boolean {
  const report = cap(name);
  if (report.status === "available") return true;
  expect(report.reason.length).toBeGreaterThan(0);
  expect(installed(tool) ? allowed.filter((s) => s !== "absent") : allowed).toContain(
    report.status,
  );
  return false;
}

describe("capture adapters on this host", () => {
  test("capabilities name every adapter with a status, tool paths and digests", () => {
    expect(caps.adapters.map((a) => a.name)).toEqual([
      "command",
      "v8-cpu",
      "v8-heap",
      "perf",
      "hyperfine",
    ]);
    expect(cap("command").status).toBe("available");
    for (const report of caps.adapters) {
      for (const tool of report.tools)
        if (tool.path) expect(tool.sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  test("perf records the workload's tree and keeps perf.data and the perf script " +
    "text", async () => {
    if (!availableOr("perf", "perf", ["absent", "permission_required", "incompatible"])) return;
    const result = await (await p.service.capture()).run({
      adapter: "perf",
      workload: "hot",
      adapterOptions: { frequency_hz: 499 },
    });
    expect(result.execution_status).toBe("succeeded");
    const names = result.artifacts.map((a) => a.display_name);
    expect(names).toContain("perf.data");
    expect(names).toContain("perf.script.txt");
    const script = p
      .bytes(result.artifacts.find((a) => a.display_name === "perf.script.txt")!.artifact_id)
      .toString();
    expect(script).toContain("node");
  }, 60_000);

  test("hyperfine keeps every run's time and its JSON export", async () => {
    if (!availableOr("hyperfine", "hyperfine", ["absent", "incompatible"])) return;
    const result = await (await p.service.capture()).run({
      adapter: "hyperfine",
      workload: "alloc",
      adapterOptions: { runs: 3, warmup: 1 },
    });
    expect(result.execution_status).toBe("succeeded");
    const summary = result.summary as { runs: number; times_s: number[]; exit_codes: number[] };
    expect(summary.runs).toBe(3);
    expect(summary.times_s).toHaveLength(3);
    expect(summary.exit_codes).toEqual([0, 0, 0]);
    const exported = JSON.parse(
      p.bytes(result.artifacts.find((a) => a.kind === "benchmark_samples")!.artifact_id).toString(),
    );
    expect(exported.results[0].times).toHaveLength(3);
    // Imported as measurements when a hyperfine extractor and the measurements table exist;
    // otherwise said so.
    if (result.extractions.length > 0)
      expect(result.extractions[0]).toMatchObject({ status: "published", adapter: "hyperfine" });
    else expect(result.limitations.map((l) => l.code)).toContain("measurements_not_imported");
  }, 60_000);

  test("node --heap-prof keeps (and extracts) a sampling heap profile; bun --heap-prof is " +
    "labelled a heap snapshot", async () => {
    if (!availableOr("v8-heap", "node", ["absent"])) return;
    const node = await (await p.service.capture()).run({ adapter: "v8-heap", workload: "alloc" });
    const profile = node.artifacts.find((a) => a.kind === "memory_profile")!;
    expect(profile.display_name).toEndWith(".heapprofile");
    expect(JSON.parse(p.bytes(profile.artifact_id).toString()).head.callFrame).toBeDefined();
    // Extracted as inuse_space frames when the v8-heapprofile format adapter is installed;
    // otherwise said so.
    if (node.extractions.length > 0)
      expect(node.extractions[0]).toMatchObject({ status: "published", adapter: "v8-heapprofile" });
    else expect(node.limitations.map((l) => l.code)).toContain("no_heap_extractor");
    if (!installed("bun")) return;
    const bun = await (await p.service.capture()).run({
      adapter: "v8-heap",
      workload: "bun-alloc",
    });
    const snapshot = bun.artifacts.find((a) => a.kind === "memory_profile")!;
    expect(bun.limitations.map((l) => l.code)).toContain("bun_heap_snapshot");
    if (JSON.parse(p.bytes(snapshot.artifact_id).toString()).snapshot) {
      expect(snapshot.display_name).toEndWith(".heapsnapshot");
      expect(bun.limitations.map((l) => l.code)).toContain("heap_snapshot_not_sampling_profile");
    }
  }, 60_000);

  test("managed containment: read-only root, declared writable roots only, store hidden, network " +
    "denied — or refused", async () => {
    if (
      !availableOr("containment.bubblewrap", "bwrap", [
        "absent",
        "incompatible",
        "permission_required",
      ])
    ) {
      await expect(
        (await p.service.capture()).plan({
          adapter: "command",
          workload: "sandboxed",
          containment: "managed",
        }),
      ).rejects.toMatchObject({ code: "CONTAINMENT_UNAVAILABLE" });
      return;
    }
    const result = await (await p.service.capture()).run({
      adapter: "command",
      workload: "sandboxed",
      containment: "managed",
    });
    expect(result.containment).toMatchObject({
      mode: "managed",
      state: "contained",
      network: "denied",
      backend: "bubblewrap",
      filesystem: "read_only_root",
    });
    const out = stdoutOf(result);
    expect(out).toContain("refused escape.txt EROFS");
    expect(out).toContain("refused .diagnostics/x EROFS");
    expect(out).toMatch(/store (1|ENOENT)/); // only the mount point of the capture's own output
    expect(out).toMatch(/net (ENETUNREACH|ECONNREFUSED|EHOSTUNREACH)/);
    expect(readFileSync(join(p.root, "out", "ok.txt"), "utf8")).toBe("ok");
    expect(existsSync(join(p.root, "escape.txt"))).toBe(false);
    expect(result.resources.writable_root_growth).toEqual([
      { path: "out", growth_bytes: 2, reason: null },
    ]);
  }, 60_000);
});
