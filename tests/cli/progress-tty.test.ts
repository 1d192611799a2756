/**
 * Import progress as a person sees it: tmux gives the import a real terminal and the
 * screen is captured while a generated Chrome trace is extracted. The bar must move
 * (several distinct percentages, with rate and time left) and report the parse worker's
 * reading, not jump from 0 to 100. On a pipe nothing is drawn. The trace is 40 MB by
 * default (FLAMEOX_PROGRESS_MB changes it; 100 was used to check it by hand).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { generateChromeTrace } from "../../fixtures/generators/chrome-trace.ts";
import { progressReporter } from "../../src/mcp/progress.ts";
import { cli, REPO, tempWorkspace } from "../helpers.ts";
import { openTerminal, TMUX } from "../terminal.ts";

let ws: { root: string; cleanup: () => void };
let trace: string;

beforeAll(async () => {
  ws = await tempWorkspace();
  trace = join(ws.root, "generated-trace.json");
  await generateChromeTrace(trace, Number(process.env.FLAMEOX_PROGRESS_MB ?? 40) << 20, 11);
});
afterAll(() => ws.cleanup());

describe.skipIf(!TMUX)("import progress", () => {
  test("on a terminal the bar moves with the bytes the worker has read, with rate and " +
    "ETA", async () => {
    const command =
      `cd ${ws.root} && ${process.execPath} ${join(REPO, "src/cli/main.ts")} import ${trace}; ` +
      `echo IMPORT-EXIT:$?; sleep 120`;
    const terminal = openTerminal(command, 120, 12, { record: true });
    const seen = new Set<number>();
    let rateShown = false;
    let screen = "";
    const deadline = Date.now() + 110_000;
    while (Date.now() < deadline) {
      screen = terminal.screen();
      for (const match of screen.matchAll(/extracting \[[#-]+\]\s+(\d+)%.*/g)) {
        seen.add(Number(match[1]));
        if (/\/s {2}ETA \d/.test(match[0])) rateShown = true;
      }
      if (screen.includes("IMPORT-EXIT:")) break;
      await Bun.sleep(50);
    }
    // Every state the bar was drawn in, not only those the screen showed when looked at: on an
    // idle machine the rate and ETA may be on screen for a moment between two looks.
    for (const match of terminal.written().matchAll(/extracting \[[#-]+\]\s+(\d+)%[^\r\n]*/g)) {
      seen.add(Number(match[1]));
      if (/\/s {2}ETA \d/.test(match[0])) rateShown = true;
    }
    terminal.close();
    expect(screen).toContain("IMPORT-EXIT:0");
    const percents = [...seen].sort((a, b) => a - b);
    // A moving bar: more than one reading, some strictly between the ends. (How many the
    // screen catches depends on the machine: an idle one reads 40 MB in a few updates.)
    expect(percents.length).toBeGreaterThanOrEqual(2);
    expect(percents.some((p) => p > 0 && p < 100)).toBe(true);
    expect(rateShown).toBe(true);
    // The bar is cleared when the import finishes: the result is what stays on screen.
    expect(screen).toContain("extracted by chrome-trace");
    expect(screen).not.toMatch(/extracting \[/);
  }, 120_000);

  test("a terminal gets colour unless NO_COLOR is set", async () => {
    const runId = (await cli(["runs", "list", "--json"], { cwd: ws.root })).json.items[0].run_id;
    const screenOf = async (prefix: string) => {
      const command =
        `cd ${ws.root} && ${prefix} ${process.execPath} ${join(REPO, "src/cli/main.ts")} runs ` +
        `show ${runId}; echo SHOW-EXIT:$?; sleep 60`;
      const terminal = openTerminal(command, 160, 20);
      try {
        return await terminal.waitFor("SHOW-EXIT:", 20_000, true);
      } finally {
        terminal.close();
      }
    };
    const coloured = await screenOf("env -u NO_COLOR");
    expect(coloured).toContain("SHOW-EXIT:0");
    expect(coloured).toMatch(/\u001b\[1m\s*run run_/);
    const plain = await screenOf("env NO_COLOR=1");
    expect(plain).toContain(`run ${runId}`);
    expect(plain.split("SHOW-EXIT")[0]).not.toContain("\u001b[");
  }, 60_000);

  test("on a pipe nothing is drawn", async () => {
    const result = await cli(["import", join(REPO, "fixtures", "samples", "sample-trace.json")], {
      cwd: ws.root,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).not.toContain("\r");
  });
});

test("MCP progress maps the worker's reading onto 60..99, monotonic", async () => {
  const sent: number[] = [];
  const reporter = progressReporter({
    progressToken: "t",
    send: async (n) => void sent.push(n.params.progress as number),
  });
  reporter.report("copying", 100, 100);
  reporter.report("extracting", 0, 1);
  reporter.report("extracting", 50, 100);
  reporter.report("extracting", 40, 100); // never backwards
  reporter.report("extracting", 100, 100);
  reporter.report("completed", 1, 1);
  await reporter.settled();
  expect(sent).toEqual([50, 60, 79, 99, 100]);
});
