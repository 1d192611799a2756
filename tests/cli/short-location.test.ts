/**
 * Long source locations (a page's `data:` URL) are shortened in text tables and kept whole in
 * `--json`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_LOCATION_CHARS, shortenMiddle, shortLocation } from "../../src/cli/short-location.ts";
import { cli, tempWorkspace } from "../helpers.ts";

describe("shortLocation", () => {
  test("short locations are unchanged; long ones keep their start, their end and the line", () => {
    expect(shortLocation("file:///app.js", 3)).toBe("file:///app.js:3");
    const url = `data:text/html,${"<p>x</p>".repeat(80)}<script>function hot(){}</script>`;
    const short = shortLocation(url, 12);
    expect(Array.from(short).length).toBe(MAX_LOCATION_CHARS);
    expect(short.startsWith("data:text/html,<p>")).toBe(true);
    expect(short.endsWith("hot(){}</script>:12")).toBe(true);
    expect(short).toContain("…");
    // Code points, not UTF-16 units: an emoji is never cut in half.
    expect(shortenMiddle("😀".repeat(100), 9)).toBe(`${"😀".repeat(4)}…${"😀".repeat(4)}`);
  });
});

describe("hotspots LOCATION column", () => {
  let root: string;
  let cleanup: () => void;
  const url = `data:text/html,${"a".repeat(600)}`;
  beforeAll(async () => {
    ({ root, cleanup } = await tempWorkspace());
  });
  afterAll(() => cleanup());

  test("text output shortens a 600-character data: URL; --json keeps it whole", async () => {
    const profile = {
      nodes: [
        {
          id: 1,
          callFrame: {
            functionName: "(root)",
            scriptId: "0",
            url: "",
            lineNumber: -1,
            columnNumber: -1,
          },
          children: [2],
        },
        {
          id: 2,
          callFrame: { functionName: "hot", scriptId: "1", url, lineNumber: 0, columnNumber: 5 },
          children: [],
        },
      ],
      startTime: 0,
      endTime: 3000,
      samples: [2, 2, 2],
      timeDeltas: [1000, 1000, 1000],
    };
    const file = join(root, "data-url.cpuprofile");
    writeFileSync(file, JSON.stringify(profile));
    const run = (await cli(["import", file, "--json"], { cwd: root })).json.run_id as string;
    const text = (await cli(["analyze", "hotspots", run, "--metric", "cpu_time"], { cwd: root }))
      .stdout as string;
    const line = text.split("\n").find((l) => l.includes(" hot "))!;
    expect(line).toContain("data:text/html,aaa");
    expect(line).toContain("…");
    expect(line).not.toContain("a".repeat(200));
    const json = (
      await cli(["analyze", "hotspots", run, "--metric", "cpu_time", "--json"], { cwd: root })
    ).json;
    expect(json.items.find((h: any) => h.function === "hot").file).toBe(url);
  }, 60_000);
});
