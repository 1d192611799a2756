/**
 * Pictures and exports end to end through the real CLI: flamegraph pages and SVGs, exports
 * read back by independent readers (`go tool pprof`, flameox's own importers, JSON), the
 * verified native bytes of `artifacts get`, and the page as headless Chromium renders it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cli, heavyTest, SAMPLES, tempWorkspace } from "../helpers.ts";

let root: string;
let cleanup: () => void;
let profile: string;
let trace: string;
/**
 * Hotspots self value per function name of the imported profile (the independent path:
 * frame_measurements).
 */
let selfByFunction: Map<string, number>;
let totalSelf: number;

const sorted = (m: Map<string, number>) =>
  [...m.entries()]
    .filter(([, v]) => v !== 0)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
const which = (tool: string) => Bun.which(tool);
const GO = which("go");
const CHROMIUM = which("chromium");
if (!GO) console.warn("pictures: go tool pprof is absent; the pprof reader check is not run");
if (!CHROMIUM) console.warn("pictures: chromium is absent; the rendering checks are not run");

async function hotspotsByFunction(
  subject: string,
): Promise<{ byName: Map<string, number>; total: number; items: any[] }> {
  const byName = new Map<string, number>();
  const items: any[] = [];
  let cursor: string | null = null;
  let total = 0;
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
      byName.set(h.function, (byName.get(h.function) ?? 0) + h.self_value);
    items.push(...r.json.items);
    total = r.json.coverage.total_self_value;
    cursor = r.json.next_cursor;
  } while (cursor);
  return { byName, total, items };
}

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
  profile = (await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root }))
    .json.artifact_id;
  trace = (await cli(["import", join(SAMPLES, "sample-trace.json"), "--json"], { cwd: root })).json
    .artifact_id;
  ({ byName: selfByFunction, total: totalSelf } = await hotspotsByFunction(profile));
}, 60_000);
afterAll(() => cleanup());

describe("flamegraph", () => {
  test("an HTML page is self-contained and carries every frame and the total", async () => {
    const r = await cli(["flamegraph", profile, "-o", "cpu.html", "--json"], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ format: "html", metric: "cpu_time", subject: profile });
    expect(r.json.total_value).toBe(totalSelf);
    const html = readFileSync(join(root, "cpu.html"), "utf8");
    expect(html).not.toMatch(
      /<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org|d3js\.org)/i,
    );
    const data = JSON.parse(
      html.match(/<script type="application\/json" id="flameox-data">([\s\S]*?)<\/script>/)![1]!,
    );
    const names = new Set<string>();
    let sum = 0;
    const visit = (n: any) => {
      names.add(n.name.replace(/ (node:|…\/|file:).*$/, ""));
      sum += n.value;
      for (const c of n.children ?? []) visit(c);
    };
    visit(data.root);
    expect(sum).toBe(totalSelf);
    for (const name of ["sortNumbers", "buildStrings", "(garbage collector)"])
      expect(names.has(name)).toBe(true);
  });

  test(
    "an SVG has a box with a tooltip per frame; the output is never overwritten " +
      "without --force",
    async () => {
      expect((await cli(["flamegraph", profile, "-o", "cpu.svg"], { cwd: root })).code).toBe(0);
      const svg = readFileSync(join(root, "cpu.svg"), "utf8");
      expect(svg.startsWith("<?xml")).toBe(true);
      // The tooltip gives the box's total (inclusive) time and share.
      expect(svg).toMatch(/<title>sortNumbers [^<]*\(169\.00 ms, 59\.16%\)<\/title>/);
      const again = await cli(["flamegraph", profile, "-o", "cpu.svg", "--json"], { cwd: root });
      expect(again.code).toBe(2);
      expect(again.json.error.code).toBe("INVALID_ARGUMENTS");
      const registered = await cli(
        ["flamegraph", profile, "-o", "cpu.svg", "--force", "--icicle", "--register", "--json"],
        { cwd: root },
      );
      expect(registered.code).toBe(0);
      const stored = await cli(
        ["artifacts", "show", registered.json.registered.artifact_id, "--json"],
        { cwd: root },
      );
      expect(stored.json.kinds).toEqual(["rendered_picture"]);
      expect(stored.json.byte_length).toBe(readFileSync(join(root, "cpu.svg")).length);
      expect((await cli(["validate", "--full"], { cwd: root })).code).toBe(0);
    },
  );

  test(
    "trace slices draw as a wall-time flamegraph; a profile without the metric is unavailable, " +
      "typed",
    async () => {
      const r = await cli(["flamegraph", trace, "-o", "trace.html", "--json"], { cwd: root });
      expect(r.code).toBe(0);
      expect(r.json.metric).toBe("wall_time");
      const missing = await cli(
        ["flamegraph", profile, "--metric", "inuse_space", "-o", "heap.html", "--json"],
        { cwd: root },
      );
      expect(missing.code).toBe(1);
      expect(missing.json.error.code).toBe("EVIDENCE_UNAVAILABLE");
      expect(readdirSync(root)).not.toContain("heap.html");
    },
  );

  // Three whole-browser runs: a heavy case. It draws its own page, so the heavy lane, which
  // runs only the [heavy] cases, needs nothing from the cases above.
  (CHROMIUM ? heavyTest : test.skip)(
    "headless Chromium renders the page, and a search highlights the hot frame",
    async () => {
      expect((await cli(["flamegraph", profile, "-o", "render.html"], { cwd: root })).code).toBe(0);
      const page = `file://${join(root, "render.html")}`;
      const dom = Bun.spawnSync(
        [
          CHROMIUM!,
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--window-size=1280,900",
          "--dump-dom",
          `${page}#search=sortNumbers`,
        ],
        { stderr: "ignore" },
      );
      const html = dom.stdout.toString();
      const boxes = [
        ...html.matchAll(/<g [^>]*name="([^"]*)"[^>]*>\s*<rect[^>]*fill="([^"]+)"/g),
      ].map((m) => ({ name: m[1]!, fill: m[2]! }));
      expect(boxes.length).toBeGreaterThan(20);
      const hot = boxes.filter((b) => b.name.startsWith("sortNumbers"));
      expect(hot.length).toBeGreaterThan(0);
      expect(hot.every((b) => b.fill.toLowerCase() === "#e600e6")).toBe(true);
      expect(boxes.filter((b) => b.fill.toLowerCase() === "#e600e6").length).toBe(hot.length);
      const shot = (url: string, out: string) =>
        Bun.spawnSync(
          [
            CHROMIUM!,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1280,900",
            `--screenshot=${out}`,
            url,
          ],
          { stderr: "ignore" },
        );
      shot(page, join(root, "page.png"));
      writeFileSync(join(root, "blank.html"), "<!doctype html><title>blank</title>");
      shot(`file://${join(root, "blank.html")}`, join(root, "blank.png"));
      const picture = readFileSync(join(root, "page.png"));
      expect(picture.subarray(1, 4).toString()).toBe("PNG");
      // Not blank: boxes and labels make the picture far larger than an empty page's.
      expect(picture.length).toBeGreaterThan(5 * readFileSync(join(root, "blank.png")).length);
    },
    60_000,
  );
});

describe("export", () => {
  test("collapsed stacks sum, per leaf function, to the hotspots' self values", async () => {
    expect(
      (await cli(["export", profile, "--format", "collapsed", "-o", "cpu.folded"], { cwd: root }))
        .code,
    ).toBe(0);
    const leafSums = new Map<string, number>();
    for (const line of readFileSync(join(root, "cpu.folded"), "utf8").trim().split("\n")) {
      const at = line.lastIndexOf(" ");
      const leaf = line.slice(0, at).split(";").at(-1)!;
      leafSums.set(leaf, (leafSums.get(leaf) ?? 0) + Number(line.slice(at + 1)));
    }
    expect(sorted(leafSums)).toEqual(sorted(selfByFunction));
  });

  test("speedscope JSON has one sampled profile whose weights sum to the total", async () => {
    expect(
      (
        await cli(["export", profile, "--format", "speedscope", "-o", "cpu.speedscope.json"], {
          cwd: root,
        })
      ).code,
    ).toBe(0);
    const file = JSON.parse(readFileSync(join(root, "cpu.speedscope.json"), "utf8"));
    expect(file.$schema).toBe("https://www.speedscope.app/file-format-schema.json");
    const [p] = file.profiles;
    expect(p).toMatchObject({ type: "sampled", unit: "nanoseconds" });
    expect(p.weights.reduce((a: number, b: number) => a + b, 0)).toBe(totalSelf);
    expect(p.samples.length).toBe(p.weights.length);
    const leafs = new Map<string, number>();
    p.samples.forEach((s: number[], i: number) => {
      const name = file.shared.frames[s.at(-1)!].name;
      leafs.set(name, (leafs.get(name) ?? 0) + p.weights[i]);
    });
    expect(sorted(leafs)).toEqual(sorted(selfByFunction));
  });

  test(
    "pprof round trip: re-imported, the export gives the same hotspots per " + "function",
    async () => {
      expect(
        (await cli(["export", profile, "--format", "pprof", "-o", "cpu.pb.gz"], { cwd: root }))
          .code,
      ).toBe(0);
      const back = await cli(["import", join(root, "cpu.pb.gz"), "--json"], { cwd: root });
      expect(back.code).toBe(0);
      expect(back.json.extraction.adapter).toBe("pprof");
      const again = await hotspotsByFunction(back.json.artifact_id);
      expect(again.total).toBe(totalSelf);
      expect(sorted(again.byName)).toEqual(sorted(selfByFunction));
    },
  );

  test.skipIf(!GO)("go tool pprof reads the export and agrees on the top functions", () => {
    const top = Bun.spawnSync(
      [GO!, "tool", "pprof", "-top", "-nodecount=50", join(root, "cpu.pb.gz")],
      { stderr: "pipe" },
    );
    expect(top.exitCode).toBe(0);
    const rows = top.stdout
      .toString()
      .split("\n")
      .map((l) => l.match(/^\s*[\d.]+\w*\s+([\d.]+)%\s+[\d.]+%\s+[\d.]+\w*\s+[\d.]+%\s+(.+)$/))
      .filter((m): m is RegExpMatchArray => m !== null)
      .map((m) => ({ flatPct: Number(m[1]), name: m[2]!.trim() }));
    // pprof groups by function name (all "(anonymous)" functions are one row), so compare named
    // ones.
    for (const name of ["sortNumbers", "(garbage collector)", "buildStrings"]) {
      const row = rows.find((r) => r.name === name)!;
      expect(row.flatPct).toBeCloseTo((100 * selfByFunction.get(name)!) / totalSelf, 1);
    }
    expect(rows.find((r) => r.name !== "(anonymous)")!.name).toBe("sortNumbers");
  });

  test("a Chrome trace export re-imports with the same slices per name", async () => {
    expect(
      (
        await cli(["export", trace, "--format", "chrome-trace", "-o", "trace.out.json"], {
          cwd: root,
        })
      ).code,
    ).toBe(0);
    const back = await cli(["import", join(root, "trace.out.json"), "--json"], { cwd: root });
    expect(back.code).toBe(0);
    const original = await hotspotsByFunction(trace);
    const again = await hotspotsByFunction(back.json.artifact_id);
    expect(sorted(again.byName)).toEqual(sorted(original.byName));
    const noTrace = await cli(
      ["export", profile, "--format", "chrome-trace", "-o", "x.json", "--json"],
      { cwd: root },
    );
    expect(noTrace.json.error.code).toBe("EVIDENCE_UNAVAILABLE");
  });
});

describe("artifacts get", () => {
  test(
    "copies the native bytes by id prefix, and refuses to hand back bytes that no longer match " +
      "their digest",
    async () => {
      const r = await cli(
        ["artifacts", "get", profile.slice(0, 19), "-o", "native.cpuprofile", "--json"],
        { cwd: root },
      );
      expect(r.code).toBe(0);
      expect(
        readFileSync(join(root, "native.cpuprofile")).equals(
          readFileSync(join(SAMPLES, "sample.cpuprofile")),
        ),
      ).toBe(true);
      const hex = profile.slice(7);
      const stored = join(root, ".diagnostics", "artifacts", "sha256", hex.slice(0, 2), hex);
      const bytes = readFileSync(stored);
      bytes[100] = bytes[100]! ^ 0x20;
      writeFileSync(stored, bytes);
      const bad = await cli(["artifacts", "get", profile, "-o", "tampered.cpuprofile", "--json"], {
        cwd: root,
      });
      expect(bad.code).toBe(5);
      expect(bad.json.error.code).toBe("ARTIFACT_INTEGRITY_FAILED");
      expect(readdirSync(root).filter((f) => f.includes("tampered"))).toEqual([]);
    },
  );
});
