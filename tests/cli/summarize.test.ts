/**
 * `flameox summarize`: every figure of the digest equals what the command it names as
 * its source prints with --json (runs show, artifacts show, analyze hotspots, and
 * measurements query paged to the end, with the groups recomputed here), and every bare
 * number of the Markdown is one of the digest's figures.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { cli, CORPUS, tempWorkspace } from "../helpers.ts";
import { call, connect } from "../mcp/mcp-helpers.ts";

type Json = any;

let root = "";
let cleanup = () => {};
const runIds: string[] = [];
let digest: Json = null;
let markdown = "";

const run = async (args: string[]) => {
  const r = await cli(args, { cwd: root });
  expect([args.join(" "), r.code, r.stderr]).toEqual([args.join(" "), 0, ""]);
  return r;
};

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
  for (const [format, name] of [
    ["nvbench", "nvbench-python-scripts-test_ref.json"],
    ["pytorch-et", "hta-simple-add-et.json.gz"],
    ["cpuprofile", "local-node20.20.2-work.cpuprofile"],
  ]) {
    copyFileSync(join(CORPUS, format!, name!), join(root, name!));
    runIds.push((await run(["import", name!, "--json"])).json.run_id);
  }
  digest = (
    await run(["summarize", ...runIds, "--hotspots", "4", "--measurement-groups", "6", "--json"])
  ).json;
  markdown = (await run(["summarize", ...runIds, "--hotspots", "4", "--measurement-groups", "6"]))
    .stdout;
}, 120_000);
afterAll(() => cleanup());

/** Every number anywhere in a JSON value. */
function numbersOf(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === "number") out.add(String(value));
  else if (Array.isArray(value)) for (const v of value) numbersOf(v, out);
  else if (value && typeof value === "object")
    for (const v of Object.values(value)) numbersOf(v, out);
  return out;
}

function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === "object")
    for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

describe("summarize", () => {
  test("one digest per run, in the order asked, at one commit, within the bounds", () => {
    expect(digest.runs.map((r: Json) => r.run_id)).toEqual(runIds);
    expect(digest.bounds).toEqual({ hotspots: 4, measurement_groups: 6 });
    expect(digest.runs[0].measurements.groups.length).toBe(6);
    expect(digest.runs[0].measurements.truncated).toBe(true);
    expect(digest.runs[1].hotspots.items.length).toBe(4);
    expect(digest.runs[0].hotspots).toBeNull();
    expect(digest.runs[1].measurements).toBeNull();
  });

  test("run, artifact and limitation figures equal runs show and artifacts show", async () => {
    for (const d of digest.runs) {
      const shown = (await run(d.sources.run.split(" ").slice(1))).json;
      expect(d.run_type).toBe(shown.run_type);
      expect(d.created_at).toBe(shown.created_at);
      expect(d.statuses).toEqual({
        execution: shown.execution_status,
        capture: shown.capture_status,
        extraction: shown.extraction_status,
        validation: shown.validation_status,
      });
      expect(d.limitations).toEqual(shown.limitations);
      expect(d.artifacts.map((a: Json) => a.artifact_id)).toEqual([
        ...new Set(shown.registrations.map((r: Json) => r.artifact_id)),
      ]);
      for (const [i, a] of d.artifacts.entries()) {
        const artifact = (await run(d.sources.artifacts[i].split(" ").slice(1))).json;
        expect(a.byte_length).toBe(artifact.byte_length);
        expect(a.kinds).toEqual(artifact.kinds);
        const regs = shown.registrations.filter((r: Json) => r.artifact_id === a.artifact_id);
        expect(a.display_names).toEqual([...new Set(regs.map((r: Json) => r.display_name))]);
        expect([a.producer, a.producer_version]).toEqual([
          regs[0].producer,
          regs[0].producer_version,
        ]);
      }
    }
  }, 60_000);

  test("hotspot figures equal analyze hotspots --json", async () => {
    const withHotspots = digest.runs.filter((d: Json) => d.hotspots !== null);
    expect(withHotspots.length).toBe(2);
    for (const d of withHotspots) {
      const hot = (await run(d.sources.hotspots.split(" ").slice(1))).json;
      expect(hot.corpus_commit_id).toBe(digest.corpus_commit_id);
      expect(d.hotspots).toEqual({
        metric: hot.metric,
        unit: hot.items[0].unit,
        total_self_value: hot.coverage.total_self_value,
        frames: hot.coverage.frames,
        items: hot.items.map((h: Json) => ({
          rank: h.rank,
          frame_id: h.frame_id,
          function: h.function,
          self_value: h.self_value,
          inclusive_value: h.inclusive_value,
        })),
        truncated: hot.truncated,
      });
    }
    expect(withHotspots.map((d: Json) => d.hotspots.metric).sort()).toEqual(["calls", "cpu_time"]);
  }, 60_000);

  test("measurement groups equal the groups recomputed from every page of measurements " +
    "query", async () => {
    const d = digest.runs[0];
    const rows: Json[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = (
        await run([
          ...d.sources.measurements.split(" ").slice(1),
          "--limit",
          "500",
          ...(cursor ? ["--cursor", cursor] : []),
        ])
      ).json;
      expect(page.corpus_commit_id).toBe(digest.corpus_commit_id);
      rows.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    const groups = new Map<
      string,
      { name: string; unit: string; aggregation: string; values: number[] }
    >();
    for (const r of rows) {
      const key = `${r.name}\u0000${r.unit}\u0000${r.aggregation}`;
      if (!groups.has(key))
        groups.set(key, { name: r.name, unit: r.unit, aggregation: r.aggregation, values: [] });
      groups.get(key)!.values.push(r.value);
    }
    const byName = [...groups.values()].sort((a, b) =>
      a.name < b.name
        ? -1
        : a.name > b.name
          ? 1
          : a.unit < b.unit
            ? -1
            : a.unit > b.unit
              ? 1
              : a.aggregation < b.aggregation
                ? -1
                : 1,
    );
    const expected = byName.map((g) => {
      let sum = 0;
      for (const v of g.values) sum += v;
      return {
        name: g.name,
        unit: g.unit,
        aggregation: g.aggregation,
        count: g.values.length,
        min: Math.min(...g.values),
        max: Math.max(...g.values),
        mean: sum / g.values.length,
      };
    });
    expect(d.measurements.total).toBe(rows.length);
    expect(d.measurements.groups_total).toBe(expected.length);
    expect(d.measurements.groups).toEqual(expected.slice(0, 6));
  }, 60_000);

  test(
    "every bare number of the Markdown is one of the digest's figures; ids and names are code " +
      "spans",
    () => {
      for (const d of digest.runs) {
        expect(markdown).toContain(`## Run \`${d.run_id}\``);
        for (const a of d.artifacts) expect(markdown).toContain(`\`${a.artifact_id}\``);
        for (const h of d.hotspots?.items ?? []) expect(markdown).toContain(`\`${h.frame_id}\``);
      }
      let text = markdown.replace(/`[^`]*`/g, " ");
      for (const s of stringsOf(digest)
        .filter((x) => x.length > 3)
        .sort((a, b) => b.length - a.length))
        text = text.split(s).join(" ");
      const bare = [...text.matchAll(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/g)].map((m) => m[0]);
      const figures = numbersOf(digest);
      expect(bare.filter((n) => !figures.has(n))).toEqual([]);
      expect(bare.length).toBeGreaterThan(40);
    },
  );

  test("summarize_runs over MCP (records group) returns the CLI's digest", async () => {
    const mcp = await connect(root, { tools: "records" });
    try {
      const r = await call(mcp.client, "summarize_runs", {
        run_ids: runIds,
        hotspots: 4,
        measurement_groups: 6,
      });
      expect(r.isError).toBe(false);
      expect(r.result).toEqual(digest);
    } finally {
      await mcp.close();
    }
  }, 60_000);

  test("refusals are typed: an unknown run, too many runs, a bad bound", async () => {
    const unknown = await cli(["summarize", "run_00000000-0000-0000-0000-000000000000", "--json"], {
      cwd: root,
    });
    expect(unknown.code).not.toBe(0);
    expect((unknown.json as Json).error.code).toBe("RUN_NOT_FOUND");
    const many = await cli(
      ["summarize", ...Array.from({ length: 11 }, (_, i) => `run_${i}`), "--json"],
      { cwd: root },
    );
    expect([many.code, (many.json as Json).error.code]).toEqual([2, "INVALID_ARGUMENTS"]);
    const bound = await cli(["summarize", runIds[0]!, "--hotspots", "0", "--json"], { cwd: root });
    expect([bound.code, (bound.json as Json).error.code]).toEqual([2, "INVALID_ARGUMENTS"]);
  }, 60_000);
});
