/**
 * A long-lived service (as the MCP server holds) decodes each generation's evidence once:
 * an import between two drill-downs publishes a new commit, and the second drill-down loads
 * nothing (its subject's generations are unchanged) while still naming the new commit. The
 * SQL engine likewise loads a generation's table once across commits. Loads are counted by
 * generation, so loading anything of an unrelated artifact fails the test. A zero budget
 * keeps nothing, and status reports the cache.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { EvidenceEngine } from "../../src/analysis/evidence-engine.ts";
import { CORPUS, SAMPLES, tempWorkspace, waitFor } from "../helpers.ts";
import { useWorkspaceService } from "../service-fixture.ts";

let root: string;
let service: WorkspaceService;
useWorkspaceService((s, r) => ((service = s), (root = r)));

let profileArtifact = "";
const generationOf = (artifactId: string) =>
  service
    .pin()
    .generations({ artifactId })
    .map((g) => g.generation_id);

test("an import between two drill-downs reloads nothing of the subject and loads nothing " +
  "unrelated", async () => {
  const profile = await service.importArtifact({ path: join(SAMPLES, "sample.cpuprofile") });
  const trace = await service.importArtifact({ path: join(SAMPLES, "sample-trace.json") });
  profileArtifact = profile.artifact_id;
  const hot = (await service.analyzeHotspots(profile.artifact_id, { limit: 1 })).items[0]!;
  const profileGenerations = new Set(generationOf(profile.artifact_id));

  const first = await service.stacks("callers", profile.artifact_id, hot.frame_id, {});
  const afterFirst = service.partLoads().length;
  expect(service.partLoads().every((l) => profileGenerations.has(l.generation_id))).toBe(true);
  expect(new Set(service.partLoads().map((l) => l.table))).toEqual(
    new Set(["frame_measurements", "frames", "call_edges"]),
  );

  const unrelated = await service.importArtifact({
    path: join(CORPUS, "hyperfine", "local-hyperfine-1.15.0-named-prepare.json"),
  });
  expect(unrelated.extraction.corpus_commit_id).not.toBe(first.corpus_commit_id);

  const second = await service.stacks("callers", profile.artifact_id, hot.frame_id, {});
  expect(service.partLoads().length).toBe(afterFirst);
  expect(second.corpus_commit_id).toBe(unrelated.extraction.corpus_commit_id);
  expect({ ...second, corpus_commit_id: "", next_cursor: null }).toEqual({
    ...first,
    corpus_commit_id: "",
    next_cursor: null,
  });
  await service.stacks("callees", profile.artifact_id, hot.frame_id, {});
  expect(service.partLoads().length).toBe(afterFirst);

  // The trace window loads the trace's own events, and nothing of the other artifacts.
  const bounds = (
    await service.traceWindow(trace.artifact_id, { startNs: 0n, endNs: 0n, limit: 1 })
  ).trace_bounds;
  const window = await service.traceWindow(trace.artifact_id, {
    startNs: BigInt(bounds.start_ns!),
    endNs: BigInt(bounds.end_ns!),
    limit: 5,
  });
  expect(window.total).toBeGreaterThan(0);
  const traceLoads = service.partLoads().slice(afterFirst);
  expect(traceLoads.map((l) => [l.generation_id, l.table])).toEqual(
    generationOf(trace.artifact_id).map((g) => [g, "trace_events"]),
  );

  const status = service.status();
  expect(status.analysis_cache.parts.loads).toBe(service.partLoads().length);
  expect(status.analysis_cache.parts.hits).toBeGreaterThan(0);
  expect(status.analysis_cache.parts.bytes).toBeGreaterThan(0);
  expect(status.analysis_cache.parts.bytes).toBeLessThanOrEqual(
    status.analysis_cache.parts.budget_bytes,
  );
  expect(status.analysis_cache.engine.open).toBe(false);
}, 120_000);

test("concurrent drill-downs decode each part once", async () => {
  const fresh = await WorkspaceService.open({ workspace: root });
  try {
    const artifact = profileArtifact;
    const hot = (await service.analyzeHotspots(artifact, { limit: 1 })).items[0]!;
    await Promise.all(
      (["callers", "callees", "examples", "callers"] as const).map((d) =>
        fresh.stacks(d, artifact, hot.frame_id, {}),
      ),
    );
    const loads = fresh.partLoads().map((l) => `${l.generation_id}/${l.table}`);
    expect(loads.sort()).toEqual([...new Set(loads)].sort());
    expect(new Set(fresh.partLoads().map((l) => l.table))).toEqual(
      new Set(["frames", "call_edges", "stacks"]),
    );
  } finally {
    fresh.close();
  }
}, 120_000);

test("the SQL engine loads a generation's spans once across commits", async () => {
  const otlp = await service.importArtifact({
    path: join(
      CORPUS,
      "otlp-json",
      "local-otel-js-exporter-otlp-http-0.223.1-batch-2scopes-24spans.json",
    ),
  });
  const first = await service.operations().transitions(otlp.artifact_id, {});
  const engine = service.status().analysis_cache.engine;
  expect(engine).toMatchObject({ open: true, starts: 1, loads: 1, tables: 1 });
  await service.importArtifact({
    path: join(CORPUS, "hyperfine", "local-hyperfine-1.15.0-ignore-failure-exit-codes.json"),
  });
  const second = await service.operations().transitions(otlp.artifact_id, {});
  await service.operations().gaps(otlp.artifact_id, {});
  await service.operations().window(otlp.artifact_id, { startNs: 0n, endNs: 2n ** 62n });
  expect(service.status().analysis_cache.engine).toMatchObject({ starts: 1, loads: 1, tables: 1 });
  expect(second.corpus_commit_id).not.toBe(first.corpus_commit_id);
  expect(second.items).toEqual(first.items);
}, 120_000);

test("the engine drops least recently used generation tables over its budget, and closes " +
  "when idle", async () => {
  const a = await service.importArtifact({
    path: join(CORPUS, "otlp-json", "local-otel-js-exporter-otlp-http-0.223.1-root-span.json"),
  });
  const b = await service.importArtifact({
    path: join(CORPUS, "otlp-json", "otlp-proto-examples-trace.json"),
  });
  const snapshot = service.pin();
  const spans = (artifactId: string) =>
    snapshot.generations({ artifactId }).filter((g) => (g.tables.otel_spans ?? 0) > 0);
  const count = () =>
    Number(engine.query("count", "SELECT count(*) AS n FROM otel_spans", [])[0]!.n);
  const engine = new EvidenceEngine({ budgetBytes: 1, idleCloseMs: 300 });
  try {
    await engine.ensureTable(snapshot, "otel_spans", spans(a.artifact_id), ["span_id"]);
    const rowsA = count();
    await engine.ensureTable(snapshot, "otel_spans", spans(b.artifact_id), ["span_id"]);
    expect(count()).toBe(b.extraction.tables.otel_spans!);
    expect(engine.stats()).toMatchObject({ loads: 2, evictions: 1, tables: 1 });
    await engine.ensureTable(snapshot, "otel_spans", spans(a.artifact_id), ["span_id"]);
    expect(count()).toBe(rowsA);
    expect(engine.stats()).toMatchObject({ loads: 3, evictions: 2, tables: 1 });
    expect(await waitFor(() => !engine.stats().open)).toBe(true);
    expect(engine.stats()).toMatchObject({ open: false, tables: 0, bytes: 0, starts: 1 });
    await engine.ensureTable(snapshot, "otel_spans", spans(a.artifact_id), ["span_id"]);
    expect(count()).toBe(rowsA);
    expect(engine.stats()).toMatchObject({ open: true, starts: 2 });
  } finally {
    engine.close();
  }
}, 120_000);

test("a zero cache budget keeps nothing between calls", async () => {
  const small = await tempWorkspace();
  writeFileSync(
    join(small.root, ".diagnostics", "config.toml"),
    "[analysis]\ncache_budget_mb = 0\n",
  );
  const svc = await WorkspaceService.open({ workspace: small.root });
  try {
    const profile = await svc.importArtifact({ path: join(SAMPLES, "sample.cpuprofile") });
    const hot = (await svc.analyzeHotspots(profile.artifact_id, { limit: 1 })).items[0]!;
    await svc.stacks("callers", profile.artifact_id, hot.frame_id, {});
    const loads = svc.partLoads().length;
    const again = await svc.stacks("callers", profile.artifact_id, hot.frame_id, {});
    expect(again.total).toBeGreaterThan(0);
    expect(svc.partLoads().length).toBe(loads + 2);
    const status = svc.status().analysis_cache;
    expect(status).toMatchObject({ budget_bytes: 0, parts: { bytes: 0, parts: 0 } });
    expect(status.parts.evictions).toBeGreaterThan(0);
  } finally {
    svc.close();
    small.cleanup();
  }
}, 120_000);
