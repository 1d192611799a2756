/**
 * OTLP lifecycle queries end to end: an OTLP/JSON trace imported through the worker, then
 * `trace operation-window|transitions|gaps` from the CLI and get_operation_window /
 * get_operation_transitions / get_lifecycle_gaps over MCP, which agree.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected } from "../mcp/mcp-helpers.ts";

const T1 = "11".repeat(16);
const T2 = "22".repeat(16);
const span = (
  traceId: string,
  spanId: string,
  parent: string | null,
  name: string,
  start: number,
  end: number,
) => ({
  traceId,
  spanId,
  ...(parent ? { parentSpanId: parent } : {}),
  name,
  kind: 2,
  startTimeUnixNano: String(start),
  endTimeUnixNano: String(end),
});
const body = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "shop" } }] },
      scopeSpans: [
        {
          scope: { name: "http" },
          spans: [
            span(T1, "a1".repeat(8), null, "GET /checkout", 1_000, 9_000),
            span(T1, "b1".repeat(8), "a1".repeat(8), "SELECT orders", 2_000, 4_000),
            span(T1, "c1".repeat(8), "b1".repeat(8), "parse rows", 2_500, 3_000),
            span(T1, "d1".repeat(8), "a1".repeat(8), "SELECT orders", 5_000, 6_000),
            span(T2, "e1".repeat(8), "ff".repeat(8), "orphan", 20_000, 30_000),
            span(T2, "f1".repeat(8), null, "backwards", 50_000, 40_000),
          ],
        },
      ],
    },
  ],
};

let root = "";
let cleanup = () => {};
let artifact = "";

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
  const path = join(root, "trace.otlp.json");
  await Bun.write(path, JSON.stringify(body));
  const imported = await cli(["import", path, "--json"], { cwd: root });
  expect(imported.code).toBe(0);
  expect(imported.json.extraction.adapter).toBe("otlp-json");
  artifact = imported.json.artifact_id;
});
afterAll(() => cleanup());

describe("OTLP lifecycle", () => {
  test("operation-window lists the spans overlapping the window, filtered by trace", async () => {
    const all = await cli(
      ["trace", "operation-window", artifact, "--start", "2600", "--end", "5500", "--json"],
      { cwd: root },
    );
    expect(all.code).toBe(0);
    expect(all.json.items.map((i: { name: string }) => i.name)).toEqual([
      "GET /checkout",
      "SELECT orders",
      "parse rows",
      "SELECT orders",
    ]);
    const one = await cli(
      [
        "trace",
        "operation-window",
        artifact,
        "--start",
        "0",
        "--end",
        "100000",
        "--trace-id",
        T2,
        "--json",
      ],
      { cwd: root },
    );
    expect(one.json.items.map((i: { name: string }) => i.name)).toEqual(["orphan", "backwards"]);
    expect(one.json.total).toBe(2);
  });

  test("transitions count parent→child pairs by depth, within max-depth", async () => {
    const r = await cli(["trace", "transitions", artifact, "--json"], { cwd: root });
    expect(r.code).toBe(0);
    const pairs = r.json.items.map(
      (t: { parent_name: string; child_name: string; depth: number; count: number }) =>
        `${t.parent_name}>${t.child_name}@${t.depth}x${t.count}`,
    );
    expect(pairs.sort()).toEqual([
      "GET /checkout>SELECT orders@1x2",
      "SELECT orders>parse rows@2x1",
    ]);
    const shallow = await cli(["trace", "transitions", artifact, "--max-depth", "1", "--json"], {
      cwd: root,
    });
    expect(shallow.json.items.length).toBe(1);
  });

  test("gaps report the missing parent and the reversed timestamps", async () => {
    const r = await cli(["trace", "gaps", artifact, "--json"], { cwd: root });
    expect(r.code).toBe(0);
    const kinds = Object.fromEntries(
      r.json.items.map((g: { kind: string; count: number }) => [g.kind, g.count]),
    );
    expect(kinds).toEqual({ missing_parent: 1, invalid_timestamps: 1 });
  });

  test("the MCP tools return the same results as the CLI", async () => {
    const mcp: Connected = await connect(root);
    try {
      const window = await call(mcp.client, "get_operation_window", {
        artifact_id: artifact,
        start_ns: "2600",
        end_ns: "5500",
      });
      expect(window.isError).toBe(false);
      expect(window.result.items.length).toBe(4);
      const transitions = await call(mcp.client, "get_operation_transitions", {
        artifact_id: artifact,
        max_depth: 8,
      });
      expect(transitions.result.items.length).toBe(2);
      const gaps = await call(mcp.client, "get_lifecycle_gaps", { artifact_id: artifact });
      expect(gaps.result.items.map((g: { kind: string }) => g.kind).sort()).toEqual([
        "invalid_timestamps",
        "missing_parent",
      ]);
      const bad = await call(mcp.client, "get_operation_window", {
        artifact_id: artifact,
        start_ns: "10",
        end_ns: "1",
      });
      expect(bad.isError).toBe(true);
      expect(bad.error.code).toBe("INVALID_ARGUMENTS");
    } finally {
      await mcp.close();
    }
  });
});
