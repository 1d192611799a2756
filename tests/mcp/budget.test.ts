/**
 * No result exceeds the 60 KB budget whatever the corpus: wide profiles and verbose
 * traces at the maximum limit come back as smaller, exact pages (truncated, with a
 * cursor that continues), and strings from artifacts are bounded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempWorkspace } from "../helpers.ts";
import {
  call,
  connect,
  type Connected,
  type Json,
  writeVerboseTrace,
  writeWideCpuProfile,
} from "./mcp-helpers.ts";

const BUDGET = 60 * 1024;
const FUNCTIONS = 5000;

let ws: { root: string; cleanup: () => void };
let mcp: Connected;
let wide: Json;
let verbose: Json;

beforeAll(async () => {
  ws = await tempWorkspace();
  writeWideCpuProfile(join(ws.root, "wide.cpuprofile"), FUNCTIONS);
  writeVerboseTrace(join(ws.root, "verbose-trace.json"), 5000);
  mcp = await connect(ws.root);
  wide = (await call(mcp.client, "import_artifact", { path: "wide.cpuprofile" })).result;
  verbose = (await call(mcp.client, "import_artifact", { path: "verbose-trace.json" })).result;
}, 120_000);
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});

function withinBudget(answer: { bytes: number; isError: boolean; error: Json }): void {
  expect(answer.isError ? answer.error.code : "ok").toBe("ok");
  expect(answer.bytes).toBeLessThanOrEqual(BUDGET);
}

describe("result budget", () => {
  test("hotspots at the maximum limit over 5,000 frames stay under 60 KB and page through every " +
    "frame exactly once", async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    let total = 0;
    let count = 0;
    do {
      const page = await call(mcp.client, "analyze_hotspots", {
        run_or_artifact: wide.run_id,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      withinBudget(page);
      expect(page.result.total).toBeGreaterThanOrEqual(FUNCTIONS);
      total = page.result.total;
      expect(page.result.returned).toBeGreaterThan(0);
      expect(page.result.returned).toBeLessThanOrEqual(200);
      for (const item of page.result.items) seen.add(item.frame_id);
      count += page.result.items.length;
      cursor = page.result.next_cursor;
      expect(page.result.truncated).toBe(cursor !== null);
      pages += 1;
    } while (cursor && pages < 200);
    expect(seen.size).toBe(total);
    expect(count).toBe(total);
    expect(pages).toBeGreaterThan(FUNCTIONS / 200);
  }, 120_000);

  test("a 20,000-character function name is cut to a bounded string", async () => {
    const top = await call(mcp.client, "analyze_hotspots", {
      run_or_artifact: wide.artifact_id,
      limit: 1,
    });
    const name: string = top.result.items[0].function;
    expect(name.startsWith("hugehuge")).toBe(true);
    expect(name.length).toBeLessThanOrEqual(1024);
    expect(name.endsWith("…")).toBe(true);
  });

  test("callees of main (5,000 of them) and stack examples at the maximum limit stay " +
    "under 60 KB", async () => {
    const hot = await call(mcp.client, "analyze_hotspots", {
      run_or_artifact: wide.artifact_id,
      limit: 3,
    });
    const callers = await call(mcp.client, "get_frame_callers", {
      run_or_artifact: wide.artifact_id,
      frame_id: hot.result.items[1].frame_id,
      limit: 200,
    });
    withinBudget(callers);
    const main = callers.result.items[0];
    expect(main.function).toBe("main");
    const callees = await call(mcp.client, "get_frame_callees", {
      run_or_artifact: wide.artifact_id,
      frame_id: main.frame_id,
      limit: 200,
    });
    withinBudget(callees);
    expect(callees.result.total).toBe(FUNCTIONS);
    expect(callees.result.truncated).toBe(true);
    const examples = await call(mcp.client, "get_stack_examples", {
      run_or_artifact: wide.artifact_id,
      frame_id: main.frame_id,
      limit: 200,
    });
    withinBudget(examples);
    expect(examples.result.next_cursor).not.toBeNull();
  }, 60_000);

  test("a trace window of 1,000 verbose events is cut to a page under 60 KB that continues with " +
    "its cursor", async () => {
    const first = await call(mcp.client, "get_trace_window", {
      artifact_id: verbose.artifact_id,
      start_ns: "0",
      end_ns: "999999999999",
      limit: 1000,
    });
    withinBudget(first);
    expect(first.result.total).toBe(5000);
    expect(first.result.returned).toBeLessThan(1000);
    expect(first.result.truncated).toBe(true);
    const second = await call(mcp.client, "get_trace_window", {
      artifact_id: verbose.artifact_id,
      start_ns: "0",
      end_ns: "999999999999",
      limit: 1000,
      cursor: first.result.next_cursor,
    });
    withinBudget(second);
    expect(second.result.items[0].event_index).not.toBe(first.result.items[0].event_index);
    expect(first.text.length).toBeLessThan(1000);
    expect(first.text).toContain("page cut to");
  }, 60_000);

  test("lists, records and evidence of the large imports stay under 60 KB", async () => {
    for (const [tool, args] of [
      ["list_runs", { limit: 200 }],
      ["list_artifacts", { limit: 200 }],
      ["get_run", { run_id: wide.run_id }],
      ["get_artifact", { artifact_id: wide.artifact_id }],
      ["get_evidence", { ref_type: "artifact", ref_id: verbose.artifact_id }],
      ["workspace_status", {}],
    ] as const) {
      withinBudget(await call(mcp.client, tool, args));
    }
  });
});
