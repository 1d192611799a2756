/**
 * Long imports: progress notifications form one monotonic stream when the client asks
 * for them, and cancelling the request stops the parse worker, cleans staging and leaves
 * the run recorded as cancelled.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cli, parseWorkersUnder, SAMPLES, tempWorkspace, waitFor } from "../helpers.ts";
import {
  call,
  connect,
  type Connected,
  type Json,
  rawSession,
  writeBigTrace,
} from "./mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let mcp: Connected;

beforeAll(async () => {
  ws = await tempWorkspace();
  copyFileSync(join(SAMPLES, "sample.cpuprofile"), join(ws.root, "sample.cpuprofile"));
  await writeBigTrace(join(ws.root, "big-trace.json"), 150);
  mcp = await connect(ws.root);
}, 60_000);
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("import_artifact progress and cancellation", () => {
  test("progress notifications are monotonic, end at completed and precede the answer on " +
    "the wire", async () => {
    // Read the wire itself: the SDK client may drop a notification that arrives in the same
    // read as the response (modelcontextprotocol/typescript-sdk#2580), so it cannot witness order.
    const raw = await rawSession(ws.root);
    await raw.send({
      id: 7,
      method: "tools/call",
      params: {
        name: "import_artifact",
        arguments: { path: "sample.cpuprofile" },
        _meta: { progressToken: "p7" },
      },
    });
    const messages = await raw.readUntil((m) => m.id === 7);
    expect(await raw.end()).toBe(0);
    const answer = messages.at(-1);
    expect(answer.result.structuredContent.ok).toBe(true);
    const updates = messages
      .slice(0, -1)
      .filter((m) => m.method === "notifications/progress")
      .map((m) => m.params);
    expect(updates.every((u) => u.progressToken === "p7")).toBe(true);
    // Extraction may report several times as the parse worker reads: the phases keep their order.
    expect(updates.map((u) => u.message).filter((m, i, all) => m !== all[i - 1])).toEqual([
      "copying",
      "extracting",
      "completed",
    ]);
    for (let i = 1; i < updates.length; i++)
      expect(updates[i].progress).toBeGreaterThan(updates[i - 1].progress);
    expect(updates.at(-1)).toMatchObject({ progress: 100, total: 100 });
  }, 60_000);

  test("an SDK client sees the progress stream in order", async () => {
    const updates: Json[] = [];
    const answer = (await mcp.client.callTool(
      { name: "import_artifact", arguments: { path: "sample.cpuprofile" } },
      undefined,
      {
        onprogress: (p) => updates.push(p),
        timeout: 60_000,
      },
    )) as Json;
    expect(answer.structuredContent.ok).toBe(true);
    // The terminal notification may be dropped by the client (see above); the earlier ones may not.
    expect(updates.map((u) => u.message).slice(0, 2)).toEqual(["copying", "extracting"]);
    for (let i = 1; i < updates.length; i++)
      expect(updates[i].progress).toBeGreaterThan(updates[i - 1].progress);
  }, 60_000);

  test("no progress notifications without a progress token", async () => {
    const before = (await call(mcp.client, "list_runs", {})).result.total;
    const answer = await call(mcp.client, "import_artifact", { path: "sample.cpuprofile" });
    expect(answer.isError).toBe(false);
    expect((await call(mcp.client, "list_runs", {})).result.total).toBe(before + 1);
  }, 60_000);

  test("cancelling a running import stops the worker, empties staging and records the run as " +
    "cancelled", async () => {
    const controller = new AbortController();
    const updates: Json[] = [];
    let extracting!: () => void;
    const extractionStarted = new Promise<void>((resolve) => (extracting = resolve));
    const pending = mcp.client.callTool(
      { name: "import_artifact", arguments: { path: "big-trace.json" } },
      undefined,
      {
        signal: controller.signal,
        timeout: 300_000,
        onprogress: (p) => {
          updates.push(p);
          if (p.message === "extracting") extracting();
        },
      },
    );
    await extractionStarted;
    // Cancel once the worker runs (the SDK sends notifications/cancelled).
    expect(await waitFor(() => parseWorkersUnder(ws.root).length > 0, { intervalMs: 50 })).toBe(
      true,
    );
    controller.abort("test cancels the import");
    await expect(pending).rejects.toThrow();
    expect(updates.some((u) => u.message === "copying")).toBe(true);

    let run: Json = null;
    for (let i = 0; i < 100; i++) {
      const newest = (await call(mcp.client, "list_runs", { limit: 1 })).result.items[0];
      if (newest.extraction_status === "cancelled" || newest.capture_status === "cancelled") {
        run = newest;
        if (readdirSync(join(ws.root, ".diagnostics", "staging")).length === 0) break;
      }
      await sleep(100);
    }
    expect(run).not.toBeNull();
    expect(run.error).toMatchObject({ code: "PROCESS_CANCELLED" });
    expect(readdirSync(join(ws.root, ".diagnostics", "staging"))).toEqual([]);
    expect(parseWorkersUnder(ws.root)).toEqual([]);
    const detail = await call(mcp.client, "get_run", { run_id: run.run_id });
    expect(detail.result.extraction_status).toBe("cancelled");
    const evidence = await call(mcp.client, "get_evidence", {
      ref_type: "run",
      ref_id: run.run_id,
    });
    expect(evidence.result.evidence).toMatchObject({ status: "unavailable", next_tool: "get_run" });
    // The server is still healthy after a cancellation.
    expect((await call(mcp.client, "workspace_status")).result.warnings).toEqual([]);
  }, 120_000);

  test("a client that disconnects mid-import leaves the run cancelled, staging empty and no " +
    "worker behind", async () => {
    const raw = await rawSession(ws.root);
    await raw.send({
      id: 2,
      method: "tools/call",
      params: {
        name: "import_artifact",
        arguments: { path: "big-trace.json" },
        _meta: { progressToken: "t" },
      },
    });
    await raw.readUntil((m) => m.params?.message === "extracting");
    expect(await waitFor(() => parseWorkersUnder(ws.root).length > 0, { intervalMs: 50 })).toBe(
      true,
    );
    expect(await raw.end()).toBe(0);
    const newest = (await cli(["runs", "list", "--limit", "1", "--json"], { cwd: ws.root })).json
      .items[0];
    expect(newest.extraction_status).toBe("cancelled");
    expect(readdirSync(join(ws.root, ".diagnostics", "staging"))).toEqual([]);
    expect(parseWorkersUnder(ws.root)).toEqual([]);
  }, 120_000);
});
