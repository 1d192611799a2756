/**
 * The server's stdout carries JSON-RPC 2.0 messages and nothing else, even when calls
 * fail, arguments are malformed, a method is unknown or a worker runs.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { SAMPLES, tempDir } from "../helpers.ts";
import { SERVER_ARGV, type Json } from "./mcp-helpers.ts";

const requests = (ids: { next: number }) => {
  const request = (method: string, params: Json = {}) => ({
    jsonrpc: "2.0",
    id: ids.next++,
    method,
    params,
  });
  const tool = (name: string, args: Json) => request("tools/call", { name, arguments: args });
  return [
    request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "0" },
    }),
    { jsonrpc: "2.0", method: "notifications/initialized" },
    request("tools/list"),
    tool("workspace_status", {}),
    tool("get_run", { run_id: 5 }),
    tool("initialize_workspace", {}),
    tool("import_artifact", { path: "sample.cpuprofile" }),
    tool("import_artifact", { path: "../outside.json" }),
    tool("analyze_hotspots", { run_or_artifact: "nonsense" }),
    tool("no_such_tool", {}),
    request("no/such/method"),
    request("resources/templates/list"),
    request("resources/read", { uri: "flameox://runs/run_missing" }),
  ];
};

describe("mcp stdout", () => {
  test("every stdout line is a JSON-RPC 2.0 message, failures included", async () => {
    const dir = tempDir("flameox-mcp-raw-");
    copyFileSync(join(SAMPLES, "sample.cpuprofile"), join(dir.path, "sample.cpuprofile"));
    const child = Bun.spawn([process.execPath, ...SERVER_ARGV(dir.path)], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, NO_COLOR: "1" },
    });
    const ids = { next: 1 };
    const messages = requests(ids);
    const expectedResponses = ids.next - 1;
    const reader = child.stdout.getReader();
    const lines: string[] = [];
    let buffered = "";
    const responses = new Set<number>();
    const decoder = new TextDecoder();
    // Send one message at a time and wait for its response, so the import finishes before the next
    // call.
    for (const message of messages) {
      child.stdin.write(JSON.stringify(message) + "\n");
      await child.stdin.flush();
      if (!("id" in message)) continue;
      while (!responses.has(message.id as number)) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        const parts = buffered.split("\n");
        buffered = parts.pop()!;
        for (const line of parts) {
          lines.push(line);
          const parsed = JSON.parse(line);
          if (typeof parsed.id === "number" && ("result" in parsed || "error" in parsed))
            responses.add(parsed.id);
        }
      }
    }
    child.stdin.end();
    await child.exited;
    dir.cleanup();
    expect(responses.size).toBe(expectedResponses);
    expect(buffered).toBe("");
    for (const line of lines) {
      const message = JSON.parse(line);
      expect(message.jsonrpc).toBe("2.0");
      expect("result" in message || "error" in message || "method" in message).toBe(true);
    }
    const byId = new Map(
      lines
        .map((l) => JSON.parse(l))
        .filter((m) => m.id !== undefined)
        .map((m) => [m.id, m]),
    );
    // ids follow the order of `requests`: 4 get_run, 6 import, 7 outside, 9 unknown tool, 10
    // unknown method.
    expect(byId.get(4).result.structuredContent.error.code).toBe("INVALID_ARGUMENTS");
    expect(byId.get(6).result.structuredContent.ok).toBe(true);
    expect(byId.get(7).result.structuredContent.error.code).toBe("ARTIFACT_REFUSED");
    expect(byId.get(9).error.code).toBe(-32602);
    expect(byId.get(10).error.code).toBe(-32601);
  }, 60_000);
});
