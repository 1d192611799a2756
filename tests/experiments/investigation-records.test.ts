/**
 * Investigation records: investigations, revisioned hypotheses and
 * findings with compare-and-swap, the guard on `supported` performance findings, and
 * `analyze record` pinned to the exact corpus commit with digests and typed references.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { InvestigationService } from "../../src/application/study/investigation-records.ts";
import { StudyService } from "../../src/application/study/study-service.ts";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { digestOf } from "../../src/domain/canonical-digest.ts";
import { StudyRecords } from "../../src/storage/study-records.ts";
import { CORPUS, SAMPLES, cli, tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected } from "../mcp/mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let service: WorkspaceService;
let inv: InvestigationService;
let profile: { run_id: string; artifact_id: string };
let exploratoryId: string;
let validId: string;
let noOracleId: string;
let invalidId: string;

beforeAll(async () => {
  ws = await tempWorkspace();
  profile = (await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: ws.root }))
    .json;
  const runIds: string[] = [];
  for (let i = 0; i < 2; i++)
    runIds.push(
      (
        await cli(
          ["import", join(CORPUS, "hyperfine", "3em-tools-benchmarks-results.json"), "--json"],
          { cwd: ws.root },
        )
      ).json.run_id,
    );
  service = await WorkspaceService.open({ workspace: ws.root });
  inv = new InvestigationService(service.ws);
  const study = new StudyService(service.ws);
  const a = study.freezeRunSet({ run_ids: [runIds[0]!] });
  const b = study.freezeRunSet({ run_ids: [runIds[1]!] });
  const recorded = await study.recordComparison({
    baseline_run_set_id: a.run_set_id,
    candidate_run_set_id: b.run_set_id,
    metric: "wall_time",
    scope: "../../target/release/bench",
    polarity: "lower_is_better",
    practical_threshold: 0.05,
  });
  expect(recorded.validity).toBe("exploratory");
  exploratoryId = recorded.comparison_id;
  // Comparisons whose statistics came from an experiment are slow to produce here; store
  // records that differ from the real one only in validity, experiment and mismatches.
  const store = (id: string, patch: Record<string, unknown>) => {
    const record = { ...recorded, ...patch, comparison_id: id };
    new StudyRecords(service.ws.control.db).insert("comparisons", {
      comparison_id: id,
      experiment_id: (record.request as { experiment_id?: string | null }).experiment_id ?? null,
      baseline_run_set_id: a.run_set_id,
      candidate_run_set_id: b.run_set_id,
      corpus_commit_id: record.corpus_commit_id,
      decision: "meaningful_regression",
      validity: record.validity as string,
      parameters_digest: digestOf(record.request),
      result_digest: digestOf(record),
      created_at: record.created_at,
      record_json: JSON.stringify(record),
    });
  };
  validId = "cmp_valid";
  store(validId, {
    validity: "valid",
    decision: "meaningful_regression",
    mismatches: [],
    request: { ...recorded.request, experiment_id: "exp_test" },
  });
  noOracleId = "cmp_no_oracle";
  store(noOracleId, { validity: "valid", decision: "meaningful_regression", mismatches: [] });
  invalidId = "cmp_invalid";
  store(invalidId, {
    validity: "invalid",
    mismatches: [
      { code: "cross_treatment_validation_failed", invalidating: true, message: "oracle failed" },
    ],
    request: { ...recorded.request, experiment_id: "exp_test" },
  });
}, 120_000);
afterAll(() => {
  service?.close();
  ws?.cleanup();
});

describe("investigations", () => {
  test("create, list and show through the CLI", async () => {
    const created = await cli(
      [
        "investigations",
        "create",
        JSON.stringify({ title: "Why is dedupe slow?", question: "Is it quadratic?" }),
        "--json",
      ],
      { cwd: ws.root },
    );
    expect(created.code).toBe(0);
    expect(created.json.investigation_id).toMatch(/^inv_/);
    expect(created.json).toMatchObject({ title: "Why is dedupe slow?", status: "open" });
    const file = join(ws.root, "inv.json");
    writeFileSync(file, JSON.stringify({ title: "second" }));
    const second = await cli(["investigations", "create", `@${file}`, "--json"], { cwd: ws.root });
    expect(second.code).toBe(0);
    const list = await cli(["investigations", "list", "--json"], { cwd: ws.root });
    expect(list.json.items.map((i: { investigation_id: string }) => i.investigation_id)).toEqual(
      expect.arrayContaining([created.json.investigation_id, second.json.investigation_id]),
    );
    const page = await cli(["investigations", "list", "--limit", "1", "--json"], { cwd: ws.root });
    expect(page.json).toMatchObject({ returned: 1, truncated: true });
    const shown = await cli(["investigations", "show", created.json.investigation_id, "--json"], {
      cwd: ws.root,
    });
    expect(shown.json).toMatchObject({
      investigation_id: created.json.investigation_id,
      hypotheses: [],
      findings: [],
    });
    const missing = await cli(["investigations", "show", "inv_nope", "--json"], { cwd: ws.root });
    expect(missing.code).toBe(2);
    const bad = await cli(["investigations", "create", "{not json", "--json"], { cwd: ws.root });
    expect(bad.code).toBe(2);
  });
});

describe("hypotheses", () => {
  test("revisions grow by compare-and-swap; a stale expected_revision is REVISION_CONFLICT", () => {
    const i = inv.createInvestigation({ title: "h" });
    const h1 = inv.recordHypothesis({
      investigation_id: i.investigation_id,
      statement: "dedupe is O(n²)",
    });
    expect(h1).toMatchObject({
      revision: 1,
      status: "proposed",
      investigation_id: i.investigation_id,
    });
    const h2 = inv.recordHypothesis({
      hypothesis_id: h1.hypothesis_id,
      expected_revision: 1,
      statement: "dedupe is O(n²) in the candidate only",
      evidence_refs: [{ ref_type: "run", ref_id: profile.run_id, relation: "context" }],
    });
    expect(h2.revision).toBe(2);
    expect(() =>
      inv.recordHypothesis({
        hypothesis_id: h1.hypothesis_id,
        expected_revision: 1,
        statement: "stale",
      }),
    ).toThrow(expect.objectContaining({ code: "REVISION_CONFLICT" }));
    expect(() =>
      inv.recordHypothesis({ hypothesis_id: h1.hypothesis_id, statement: "no revision" }),
    ).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENTS" }));
    expect(() => inv.recordHypothesis({ investigation_id: "inv_missing", statement: "x" })).toThrow(
      expect.objectContaining({ code: "RECORD_NOT_FOUND" }),
    );
    expect(() =>
      inv.recordHypothesis({
        investigation_id: i.investigation_id,
        statement: "x",
        evidence_refs: [{ ref_type: "run", ref_id: "run_missing" }],
      }),
    ).toThrow(expect.objectContaining({ code: "RECORD_NOT_FOUND" }));
    expect(inv.getHypothesis(h1.hypothesis_id)).toMatchObject({
      revision: 2,
      statement: "dedupe is O(n²) in the candidate only",
    });
    expect(inv.getHypothesis(h1.hypothesis_id, 1).statement).toBe("dedupe is O(n²)");
    expect(inv.getInvestigation(i.investigation_id).hypotheses.map((h) => h.revision)).toEqual([2]);
  });

  test("the CLI reports a conflict with exit code 7", async () => {
    const i = inv.createInvestigation({ title: "cli" });
    const h = inv.recordHypothesis({ investigation_id: i.investigation_id, statement: "s" });
    inv.recordHypothesis({ hypothesis_id: h.hypothesis_id, expected_revision: 1, statement: "s2" });
    const stale = await cli(
      [
        "hypotheses",
        "record",
        JSON.stringify({ hypothesis_id: h.hypothesis_id, expected_revision: 1, statement: "s3" }),
        "--json",
      ],
      { cwd: ws.root },
    );
    expect(stale.code).toBe(7);
    const shown = await cli(["hypotheses", "show", h.hypothesis_id, "--revision", "1", "--json"], {
      cwd: ws.root,
    });
    expect(shown.json).toMatchObject({ revision: 1, statement: "s" });
  });
});

describe("findings", () => {
  const regression = (extra: Record<string, unknown>) => ({
    statement: "the candidate is slower",
    kind: "regression",
    evidence_level: "derived",
    assessment: "supported",
    ...extra,
  });

  test("a supported performance regression without a comparison is refused", () => {
    expect(() => inv.recordFinding(regression({}))).toThrow(
      expect.objectContaining({
        code: "COMPARISON_INVALID",
        details: expect.objectContaining({ reason: "comparison_missing" }),
      }),
    );
  });

  test(
    "a supported performance finding on an exploratory, invalid or oracle-less comparison is " +
      "refused",
    () => {
      expect(() => inv.recordFinding(regression({ comparison_id: exploratoryId }))).toThrow(
        expect.objectContaining({
          code: "COMPARISON_INVALID",
          details: expect.objectContaining({ reason: "comparison_not_valid" }),
        }),
      );
      expect(() => inv.recordFinding(regression({ comparison_id: invalidId }))).toThrow(
        expect.objectContaining({ code: "COMPARISON_INVALID" }),
      );
      expect(() => inv.recordFinding(regression({ comparison_id: noOracleId }))).toThrow(
        expect.objectContaining({
          code: "COMPARISON_INVALID",
          details: expect.objectContaining({ reason: "cross_treatment_oracle_missing" }),
        }),
      );
      // Any finding naming a comparison is a performance finding, whatever its kind.
      expect(() =>
        inv.recordFinding(regression({ kind: "anomaly", comparison_id: exploratoryId })),
      ).toThrow(expect.objectContaining({ code: "COMPARISON_INVALID" }));
      expect(() => inv.recordFinding(regression({ comparison_id: "cmp_missing" }))).toThrow(
        expect.objectContaining({ code: "RECORD_NOT_FOUND" }),
      );
    },
  );

  test(
    "unassessed or inconclusive findings need no valid comparison; supported does with " + "one",
    () => {
      const f1 = inv.recordFinding(
        regression({ assessment: "inconclusive", comparison_id: exploratoryId }),
      );
      expect(f1).toMatchObject({
        revision: 1,
        assessment: "inconclusive",
        comparison_id: exploratoryId,
      });
      expect(f1.evidence_refs).toContainEqual({
        ref_type: "comparison",
        ref_id: exploratoryId,
        relation: "supports",
      });
      expect(() =>
        inv.recordFinding(regression({ finding_id: f1.finding_id, expected_revision: 1 })),
      ).toThrow(expect.objectContaining({ code: "COMPARISON_INVALID" }));
      const f2 = inv.recordFinding(
        regression({ finding_id: f1.finding_id, expected_revision: 1, comparison_id: validId }),
      );
      expect(f2).toMatchObject({ finding_id: f1.finding_id, revision: 2, assessment: "supported" });
      expect(() =>
        inv.recordFinding(
          regression({ finding_id: f1.finding_id, expected_revision: 1, comparison_id: validId }),
        ),
      ).toThrow(expect.objectContaining({ code: "REVISION_CONFLICT" }));
      expect(inv.getFinding(f1.finding_id)).toMatchObject({ revision: 2 });
      expect(inv.getFinding(f1.finding_id, 1)).toMatchObject({ assessment: "inconclusive" });
      // A hotspot observed in a profile is not a performance-change claim.
      expect(
        inv.recordFinding({
          statement: "parse dominates",
          kind: "hotspot",
          evidence_level: "observed",
          assessment: "supported",
          evidence_refs: [{ ref_type: "artifact", ref_id: profile.artifact_id }],
        }).assessment,
      ).toBe("supported");
      expect(() =>
        inv.recordFinding({ statement: "x", kind: "speedup", evidence_level: "observed" }),
      ).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENTS" }));
    },
  );

  test("findings list the newest revision per finding, by investigation", () => {
    const i = inv.createInvestigation({ title: "f" });
    const f = inv.recordFinding({
      investigation_id: i.investigation_id,
      statement: "a",
      kind: "anomaly",
      evidence_level: "inferred",
    });
    inv.recordFinding({
      finding_id: f.finding_id,
      expected_revision: 1,
      investigation_id: i.investigation_id,
      statement: "a, revised",
      kind: "anomaly",
      evidence_level: "inferred",
      assessment: "refuted",
    });
    inv.recordFinding({
      investigation_id: i.investigation_id,
      statement: "b",
      kind: "validation",
      evidence_level: "observed",
    });
    const page = inv.listFindings({ investigationId: i.investigation_id });
    expect(page.total).toBe(2);
    expect(page.items.map((x) => [x.statement, x.revision])).toEqual([
      ["a, revised", 2],
      ["b", 1],
    ]);
    const first = inv.listFindings({ investigationId: i.investigation_id, limit: 1 });
    expect(first.truncated).toBe(true);
    expect(
      inv.listFindings({ investigationId: i.investigation_id, limit: 1, cursor: first.next_cursor })
        .items[0]!.statement,
    ).toBe("b");
    expect(inv.getInvestigation(i.investigation_id).findings).toHaveLength(2);
  });
});

describe("analyze record", () => {
  test("stores the exact commit, digests and references to existing records", async () => {
    const r = await cli(
      [
        "analyze",
        "record",
        JSON.stringify({ recipe: "cpu_hotspots", run_or_artifact: profile.run_id, limit: 5 }),
        "--json",
      ],
      { cwd: ws.root },
    );
    expect(r.code).toBe(0);
    const recorded = r.json;
    expect(recorded.analysis_id).toMatch(/^ana_/);
    const hotspots = await service.analyzeHotspots(profile.run_id, { limit: 5 });
    expect(recorded.corpus_commit_id).toBe(hotspots.corpus_commit_id);
    expect(recorded.result_digest).toBe(digestOf(hotspots));
    expect(recorded.parameters_digest).toBe(digestOf(recorded.parameters));
    const row = service.ws.control.db
      .query(
        "SELECT recipe, corpus_commit_id, parameters_digest, result_digest FROM analyses " +
          "WHERE analysis_id = ?",
      )
      .get(recorded.analysis_id);
    expect(row).toEqual({
      recipe: "cpu_hotspots",
      corpus_commit_id: hotspots.corpus_commit_id,
      parameters_digest: recorded.parameters_digest,
      result_digest: recorded.result_digest,
    });
    const refs = service.ws.control.db
      .query(
        "SELECT ref_type, ref_id FROM evidence_refs WHERE owner_type = 'analysis' AND owner_id = ?",
      )
      .all(recorded.analysis_id) as { ref_type: string; ref_id: string }[];
    expect(refs.map((x) => x.ref_type).sort()).toEqual(["artifact", "generation", "run"]);
    const table: Record<string, [string, string]> = {
      run: ["runs", "run_id"],
      artifact: ["artifacts", "artifact_id"],
      generation: ["catalog_generations", "generation_id"],
    };
    for (const ref of refs) {
      const [t, k] = table[ref.ref_type]!;
      expect(
        service.ws.control.db.query(`SELECT 1 AS ok FROM ${t} WHERE ${k} = ?`).get(ref.ref_id),
      ).toEqual({ ok: 1 });
    }
    expect(refs.find((x) => x.ref_type === "run")!.ref_id).toBe(profile.run_id);
    expect(refs.find((x) => x.ref_type === "artifact")!.ref_id).toBe(profile.artifact_id);
    // An analysis can then be cited by a finding.
    const f = inv.recordFinding({
      statement: "top frame",
      kind: "hotspot",
      evidence_level: "derived",
      evidence_refs: [{ ref_type: "analysis", ref_id: recorded.analysis_id }],
    });
    expect(f.evidence_refs[0]).toEqual({
      ref_type: "analysis",
      ref_id: recorded.analysis_id,
      relation: "supports",
    });
    await expect(
      inv.recordAnalysis({ recipe: "flamegraph", run_or_artifact: profile.run_id }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    await expect(
      inv.recordAnalysis({ recipe: "cpu_hotspots", run_or_artifact: "run_missing" }),
    ).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
  });
});

describe("investigation tools over MCP", () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connect(ws.root);
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
  });

  test("create_investigation, record_hypothesis with a conflict, record_finding refusal, " +
    "record_analysis", async () => {
    const created = await call(mcp.client, "create_investigation", { title: "over MCP" });
    expect(created.isError).toBe(false);
    const id = created.result.investigation_id;
    const got = await call(mcp.client, "get_investigation", { investigation_id: id });
    expect(got.result).toMatchObject({ investigation_id: id, title: "over MCP" });
    const listed = await call(mcp.client, "list_investigations", { limit: 1000 });
    expect(
      listed.result.items.map((i: { investigation_id: string }) => i.investigation_id),
    ).toContain(id);
    const h = await call(mcp.client, "record_hypothesis", { investigation_id: id, statement: "s" });
    expect(h.result).toMatchObject({ revision: 1 });
    const h2 = await call(mcp.client, "record_hypothesis", {
      hypothesis_id: h.result.hypothesis_id,
      expected_revision: 1,
      statement: "s2",
    });
    expect(h2.result).toMatchObject({ revision: 2 });
    const stale = await call(mcp.client, "record_hypothesis", {
      hypothesis_id: h.result.hypothesis_id,
      expected_revision: 1,
      statement: "s3",
    });
    expect(stale.isError).toBe(true);
    expect(stale.error.code).toBe("REVISION_CONFLICT");
    expect(
      (await call(mcp.client, "get_hypothesis", { hypothesis_id: h.result.hypothesis_id })).result
        .revision,
    ).toBe(2);
    const refused = await call(mcp.client, "record_finding", {
      investigation_id: id,
      statement: "slower",
      kind: "regression",
      evidence_level: "derived",
      assessment: "supported",
      comparison_id: exploratoryId,
    });
    expect(refused.isError).toBe(true);
    expect(refused.error.code).toBe("COMPARISON_INVALID");
    const f = await call(mcp.client, "record_finding", {
      investigation_id: id,
      statement: "slower",
      kind: "regression",
      evidence_level: "derived",
      assessment: "supported",
      comparison_id: validId,
    });
    expect(f.result).toMatchObject({ revision: 1, assessment: "supported" });
    expect(
      (await call(mcp.client, "get_finding", { finding_id: f.result.finding_id })).result
        .finding_id,
    ).toBe(f.result.finding_id);
    expect((await call(mcp.client, "list_findings", { investigation_id: id })).result.total).toBe(
      1,
    );
    const a = await call(mcp.client, "record_analysis", {
      recipe: "cpu_hotspots",
      run_or_artifact: profile.artifact_id,
      investigation_id: id,
    });
    expect(a.isError).toBe(false);
    expect(a.result.analysis_id).toMatch(/^ana_/);
    expect(a.result.corpus_commit_id).toBe(
      (await service.analyzeHotspots(profile.artifact_id, {})).corpus_commit_id,
    );
  }, 60_000);
});
