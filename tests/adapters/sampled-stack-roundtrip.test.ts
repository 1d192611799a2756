/**
 * Round trips through flameox's own exporters: a real CPU profile exported as collapsed
 * stacks and as speedscope JSON imports back (collapsed-stacks and speedscope adapters)
 * with the same self value per function as the original profile's hotspots, and a perf
 * script imported and exported as collapsed stacks imports back the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, REPO, SAMPLES, tempWorkspace } from "../helpers.ts";

let root: string;
let cleanup: () => void;

const sorted = (m: Map<string, number>) =>
  [...m.entries()]
    .filter(([, v]) => v !== 0)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

async function selfByFunction(
  subject: string,
): Promise<{ metric: string; byName: Map<string, number> }> {
  const byName = new Map<string, number>();
  let cursor: string | null = null;
  let metric = "";
  do {
    const r = await cli(
      [
        "analyze",
        "hotspots",
        subject,
        "--limit",
        "1000",
        "--json",
        ...(cursor ? ["--cursor", cursor] : []),
      ],
      { cwd: root },
    );
    for (const h of r.json.items)
      byName.set(
        h.function || "(anonymous)",
        (byName.get(h.function || "(anonymous)") ?? 0) + h.self_value,
      );
    metric = r.json.metric;
    cursor = r.json.next_cursor;
  } while (cursor);
  return { metric, byName };
}

async function importFile(path: string): Promise<{ artifact: string; adapter: string }> {
  const r = await cli(["import", path, "--json"], { cwd: root });
  expect(r.code).toBe(0);
  return { artifact: r.json.artifact_id, adapter: r.json.extraction.adapter };
}

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
}, 60_000);
afterAll(() => cleanup());

describe("sampled-stack formats read back flameox's exports", () => {
  test("a cpuprofile exported as collapsed stacks and as speedscope imports back with the same " +
    "self per function", async () => {
    const original = await importFile(join(SAMPLES, "sample.cpuprofile"));
    const want = await selfByFunction(original.artifact);
    expect(want.metric).toBe("cpu_time");
    for (const [format, adapter, metric] of [
      ["collapsed", "collapsed-stacks", "samples"],
      ["speedscope", "speedscope", "cpu_time"],
    ] as const) {
      const out = `cpu.${format}`;
      expect(
        (await cli(["export", original.artifact, "--format", format, "-o", out], { cwd: root }))
          .code,
      ).toBe(0);
      const back = await importFile(join(root, out));
      expect(back.adapter).toBe(adapter);
      const got = await selfByFunction(back.artifact);
      expect(got.metric).toBe(metric);
      expect([format, sorted(got.byName)]).toEqual([format, sorted(want.byName)]);
    }
  }, 120_000);

  test("a perf script exported as collapsed stacks imports back with the same self per " +
    "function", async () => {
    const original = await importFile(
      join(REPO, "fixtures", "perf-script", "fork-two-events.perf.txt"),
    );
    expect(original.adapter).toBe("perf-script");
    const want = await selfByFunction(original.artifact);
    expect(
      (
        await cli(["export", original.artifact, "--format", "collapsed", "-o", "perf.folded"], {
          cwd: root,
        })
      ).code,
    ).toBe(0);
    const back = await importFile(join(root, "perf.folded"));
    expect(back.adapter).toBe("collapsed-stacks");
    expect(sorted((await selfByFunction(back.artifact)).byName)).toEqual(sorted(want.byName));
  }, 120_000);
});
