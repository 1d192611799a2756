/**
 * `flameox summarize BASE CANDIDATE --compare`: every figure equals what the command its
 * section names prints with --json (`diff … --sort self|total`, `analyze compare
 * --baseline-run … --candidate-run …`, `artifacts show`), every bare number of the
 * Markdown is one of the digest's figures, and summarize_runs with compare returns the same.
 * Two pairs of runs: two CPU profiles (functions that moved) and two hyperfine files of the
 * same commands, the candidate about 20% faster (measurements that moved).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, CORPUS, tempWorkspace } from "../helpers.ts";
import { call, connect } from "../mcp/mcp-helpers.ts";

type Json = any;

let root = "";
let cleanup = () => {};
let profiles: Json = null;
let benches: Json = null;
let profilesMarkdown = "";
const ids: Record<string, string> = {};

const run = async (args: string[]) => {
  const r = await cli(args, { cwd: root });
  expect([args.join(" "), r.code, r.stderr]).toEqual([args.join(" "), 0, ""]);
  return r;
};
const argsOf = (command: string) => command.split(" ").slice(1);

/** Hyperfine JSON of two commands, 12 runs each, times scaled by `scale` (deterministic). */
function hyperfine(scale: number): string {
  let x = 7;
  const next = () => ((x = (x * 48271) % 2147483647), x / 2147483647);
  const results = ["parse", "render"].map((command) => {
    const times = Array.from({ length: 12 }, () =>
      Number((0.01 * scale * (0.97 + 0.06 * next())).toFixed(6)),
    );
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    return {
      command,
      mean,
      stddev: 0.0003,
      median: [...times].sort()[6],
      user: 0.001,
      system: 0.001,
      min: Math.min(...times),
      max: Math.max(...times),
      times,
      exit_codes: times.map(() => 0),
    };
  });
  return JSON.stringify({ results });
}

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
  copyFileSync(
    join(CORPUS, "cpuprofile", "local-node20.20.2-work.cpuprofile"),
    join(root, "base.cpuprofile"),
  );
  copyFileSync(
    join(CORPUS, "cpuprofile", "speedscope-chrome65-simple.cpuprofile"),
    join(root, "candidate.cpuprofile"),
  );
  writeFileSync(join(root, "base.json"), hyperfine(1));
  writeFileSync(join(root, "candidate.json"), hyperfine(0.8));
  for (const name of ["base.cpuprofile", "candidate.cpuprofile", "base.json", "candidate.json"])
    ids[name] = (await run(["import", name, "--json"])).json.run_id;
  profiles = (
    await run([
      "summarize",
      ids["base.cpuprofile"]!,
      ids["candidate.cpuprofile"]!,
      "--compare",
      "--functions",
      "4",
      "--json",
    ])
  ).json;
  profilesMarkdown = (
    await run([
      "summarize",
      ids["base.cpuprofile"]!,
      ids["candidate.cpuprofile"]!,
      "--compare",
      "--functions",
      "4",
    ])
  ).stdout;
  benches = (
    await run(["summarize", ids["base.json"]!, ids["candidate.json"]!, "--compare", "--json"])
  ).json;
}, 120_000);
afterAll(() => cleanup());

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

describe("summarize --compare", () => {
  test("functions that moved, by self and by total, equal diff --json of the command each " +
    "ranking names", async () => {
    expect(profiles.summary).toBe("comparison.summary");
    expect(profiles.profiles.map((p: Json) => p.metric)).toEqual(["cpu_time"]);
    for (const p of profiles.profiles) {
      for (const [sort, items, source] of [
        ["self", p.by_self, p.sources.self],
        ["total", p.by_total, p.sources.total],
      ] as const) {
        expect(source).toContain(`--sort ${sort}`);
        const diff = (await run(argsOf(source))).json;
        expect(diff.corpus_commit_id).toBe(profiles.corpus_commit_id);
        expect([p.unit, p.totals]).toEqual([diff.unit, diff.totals]);
        expect(items.length).toBe(4);
        expect(items).toEqual(
          diff.items.map((d: Json) => ({
            rank: d.rank,
            function: d.function,
            file: d.file,
            match: d.match,
            base_self: d.base.self,
            candidate_self: d.candidate.self,
            delta_self: d.delta_self,
            base_total: d.base.total,
            candidate_total: d.candidate.total,
            delta_total: d.delta_total,
          })),
        );
      }
    }
    expect(profiles.measurements).toEqual([]);
  }, 60_000);

  test("each measurement's change equals analyze compare --json of the two runs (interval, " +
    "effect size, decision)", async () => {
    expect(benches.profiles).toEqual([]);
    expect(benches.measurements.map((m: Json) => [m.name, m.scope])).toEqual([
      ["exit_code", "parse"],
      ["exit_code", "render"],
      ["wall_time", "parse"],
      ["wall_time", "render"],
    ]);
    for (const m of benches.measurements) {
      const r = (await run(argsOf(m.source))).json;
      expect(m).toEqual({
        name: m.name,
        scope: m.scope,
        unit: r.unit,
        polarity: r.polarity,
        baseline_value: r.baseline_value,
        candidate_value: r.candidate_value,
        absolute_change: r.absolute_change,
        relative_change: r.relative_change,
        effect_size: r.effect_size,
        confidence_low: r.confidence_low,
        confidence_high: r.confidence_high,
        confidence_level: r.confidence_level,
        complete_pair_n: r.complete_pair_n,
        method: r.method,
        decision: r.decision,
        validity: r.validity,
        caveats: [
          ...r.limitations.map((l: Json) => l.code),
          ...r.mismatches.map((x: Json) => x.code),
        ],
        source: m.source,
      });
    }
    // The candidate's times are 0.8 of the base's: the comparison sees a ~20% improvement.
    const wall = benches.measurements.find(
      (m: Json) => m.name === "wall_time" && m.scope === "parse",
    );
    expect([
      wall.complete_pair_n,
      wall.decision,
      wall.relative_change < -0.15 && wall.relative_change > -0.25,
    ]).toEqual([12, "meaningful_improvement", true]);
    // Two single runs pair their samples by position: the comparison says so, and the digest
    // carries it.
    expect([wall.validity, wall.caveats.includes("within_run_pairing")]).toEqual([
      "exploratory",
      true,
    ]);
  }, 60_000);

  test("artifact ids of both sides equal artifacts show", async () => {
    for (const side of [profiles.base, profiles.candidate, benches.base, benches.candidate]) {
      expect(side.artifacts.length).toBe(1);
      const shown = (await run(["artifacts", "show", side.artifacts[0].artifact_id, "--json"]))
        .json;
      expect([side.artifacts[0].byte_length, side.artifacts[0].kinds]).toEqual([
        shown.byte_length,
        shown.kinds,
      ]);
    }
  }, 60_000);

  test("every bare number of the Markdown is one of the digest's figures", () => {
    for (const p of profiles.profiles)
      for (const f of p.by_self)
        expect(profilesMarkdown).toContain(
          `\`${f.file === null ? f.function : `${f.function} (${f.file})`}\``,
        );
    let text = profilesMarkdown.replace(/`[^`]*`/g, " ");
    for (const s of stringsOf(profiles)
      .filter((x) => x.length > 3)
      .sort((a, b) => b.length - a.length))
      text = text.split(s).join(" ");
    const bare = [...text.matchAll(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/g)].map((m) => m[0]);
    expect(bare.filter((n) => !numbersOf(profiles).has(n))).toEqual([]);
    expect(bare.length).toBeGreaterThan(40);
  });

  test("summarize_runs with compare returns the CLI's digest; refusals are typed", async () => {
    const mcp = await connect(root, { tools: "records" });
    try {
      const r = await call(mcp.client, "summarize_runs", {
        run_ids: [ids["base.json"], ids["candidate.json"]],
        compare: true,
      });
      expect(r.isError).toBe(false);
      expect(r.result).toEqual(benches);
      const three = await call(mcp.client, "summarize_runs", {
        run_ids: [ids["base.json"], ids["candidate.json"], ids["base.cpuprofile"]],
        compare: true,
      });
      expect([three.isError, three.error?.code]).toEqual([true, "INVALID_ARGUMENTS"]);
    } finally {
      await mcp.close();
    }
    const same = await cli(
      ["summarize", ids["base.json"]!, ids["base.json"]!, "--compare", "--json"],
      { cwd: root },
    );
    expect([same.code, (same.json as Json).error.code]).toEqual([2, "INVALID_ARGUMENTS"]);
  }, 60_000);
});
