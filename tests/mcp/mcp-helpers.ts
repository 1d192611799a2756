/**
 * MCP test helpers: a real stdio client spawning `flameox mcp serve`, and generators of large
 * inputs.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../helpers.ts";

/**
 * Every tool group unless told otherwise: most tests exercise the tools themselves;
 * tool-groups.test.ts covers the default (core) profile with `tools: null` (no flag).
 */
export const SERVER_ARGV = (root: string, tools: string | null = "all") => [
  join(REPO, "src", "cli", "main.ts"),
  "mcp",
  "serve",
  "--project-root",
  root,
  ...(tools === null ? [] : ["--tools", tools]),
];

export interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

/**
 * Spawns the server as a client would and connects; listTools primes the client's output-schema
 * validators.
 */
export async function connect(
  root: string,
  options: { tools?: string | null } = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: SERVER_ARGV(root, options.tools),
    env: { ...(process.env as Record<string, string>), NO_COLOR: "1" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "flameox-test", version: "0.0.0" });
  await client.connect(transport);
  await client.listTools();
  return { client, stderr: () => stderr, close: () => client.close() };
}

export type Json = any;

/**
 * The server spoken to line by line, without an SDK client: tests that are about what is
 * on the wire (order of notifications and responses) read it here.
 */
export interface RawSession {
  send(message: Json): Promise<void>;
  /** Reads messages until `until` holds for one; returns every message read, in order. */
  readUntil(until: (message: Json) => boolean): Promise<Json[]>;
  /** Closes stdin and waits for the server to exit. */
  end(): Promise<number>;
}

export async function rawSession(root: string, tools: string | null = "all"): Promise<RawSession> {
  const child = Bun.spawn([process.execPath, ...SERVER_ARGV(root, tools)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const session: RawSession = {
    async send(message) {
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
      await child.stdin.flush();
    },
    async readUntil(until) {
      const read: Json[] = [];
      for (;;) {
        const newline = buffered.indexOf("\n");
        if (newline >= 0) {
          const message = JSON.parse(buffered.slice(0, newline));
          buffered = buffered.slice(newline + 1);
          read.push(message);
          if (until(message)) return read;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`server closed stdout after ${read.length} messages`);
        buffered += decoder.decode(value, { stream: true });
      }
    },
    async end() {
      child.stdin.end();
      return await child.exited;
    },
  };
  await session.send({
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "0" },
    },
  });
  await session.readUntil((m) => m.id === 0);
  await session.send({ method: "notifications/initialized" });
  return session;
}

export interface Called {
  isError: boolean;
  envelope: Json;
  result: Json;
  error: Json;
  text: string;
  bytes: number;
}

/**
 * Calls a tool; the SDK client has already checked structuredContent against the tool's
 * outputSchema.
 */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Called> {
  const response = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
  })) as Json;
  const envelope = response.structuredContent;
  return {
    isError: response.isError === true,
    envelope,
    result: envelope?.result,
    error: envelope?.error,
    text: response.content?.[0]?.text ?? "",
    bytes: Buffer.byteLength(JSON.stringify(response)),
  };
}

/**
 * A V8 .cpuprofile where `main` calls `functions` distinct, sampled functions; the first
 * has a 20,000-character name.
 */
export function writeWideCpuProfile(path: string, functions: number): void {
  const frame = (functionName: string, url = "", line = -1) => ({
    functionName,
    scriptId: "1",
    url,
    lineNumber: line,
    columnNumber: 0,
  });
  const main: Json = {
    id: 2,
    callFrame: frame("main", "file:///srv/app/main.js", 1),
    hitCount: 0,
    children: [],
  };
  const nodes: Json[] = [{ id: 1, callFrame: frame("(root)"), hitCount: 0, children: [2] }, main];
  const samples: number[] = [];
  for (let i = 0; i < functions; i++) {
    const id = i + 3;
    const hits = i === 0 ? 50 : 1 + (i % 7);
    const name =
      i === 0 ? "huge".repeat(5000) : `generatedFunctionNumber${i}_${"x".repeat(i % 40)}`;
    const url =
      `file:///srv/app/src/generated/module_${i % 97}/very/deep/directory/structure/handler_` +
      `${i}.js`;
    main.children.push(id);
    nodes.push({ id, callFrame: frame(name, url, i % 500), hitCount: hits, children: [] });
    for (let k = 0; k < hits; k++) samples.push(id);
  }
  const timeDeltas = samples.map(() => 100);
  writeFileSync(
    path,
    JSON.stringify({ nodes, startTime: 0, endTime: samples.length * 100, samples, timeDeltas }),
  );
}

/**
 * A Chrome trace JSON of roughly `megabytes` MB: complete events on a few threads, written in
 * chunks.
 */
export async function writeBigTrace(path: string, megabytes: number): Promise<void> {
  const writer = Bun.file(path).writer();
  writer.write('{"traceEvents":[');
  let bytes = 0;
  let i = 0;
  while (bytes < megabytes * 1024 * 1024) {
    const batch: string[] = [];
    for (let k = 0; k < 1000; k++, i++) {
      batch.push(
        `{"pid":1,"tid":${1 + (i % 4)},"ts":${1000 + 3 * i}` +
          `,"ph":"X","cat":"gen","name":"slice_${i % 5000}","dur":5,"args":{"i":${i}}}`,
      );
    }
    const chunk = (bytes > 0 ? "," : "") + batch.join(",");
    bytes += chunk.length;
    writer.write(chunk);
  }
  writer.write("]}");
  await writer.end();
}

/** A Chrome trace JSON with `events` complete events carrying long names and args. */
export function writeVerboseTrace(path: string, events: number): void {
  const rows: string[] = [];
  for (let i = 0; i < events; i++) {
    const name = `verbose_slice_${i}_${"n".repeat(200)}`;
    rows.push(
      JSON.stringify({
        pid: 1,
        tid: 1 + (i % 8),
        ts: 1000 + i * 10,
        ph: "X",
        cat: "gen",
        name,
        dur: 8,
        args: { note: "a".repeat(600), i },
      }),
    );
  }
  writeFileSync(path, `{"traceEvents":[${rows.join(",")}]}`);
}
