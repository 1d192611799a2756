/**
 * `flameox mcp serve`: the stdio server process. Stdout carries protocol messages only,
 * so console output is rerouted to stderr before anything else runs; the process stays
 * up until the client closes stdin (or a signal); calls still running are then aborted
 * and given time to clean up before the workspace closes.
 */
import { createServer } from "./server.ts";
import type { ToolGroup } from "./tool-groups.ts";
import { JsonRpcStdioTransport } from "./stdio-transport.ts";
import { WorkspaceSession } from "./workspace-session.ts";

/** How long shutdown waits for aborted calls to clean up (the broker's kill grace is 2 s). */
const DRAIN_MS = 10_000;

/**
 * Routes console.log/info/debug/warn to stderr: a stray log line would corrupt the protocol stream.
 */
export function guardStdout(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
}

export async function serveStdio(options: {
  projectRoot: string;
  init: boolean;
  groups?: readonly ToolGroup[];
}): Promise<void> {
  guardStdout();
  const session = new WorkspaceSession(options.projectRoot);
  if (options.init) await session.initialize();
  const server = createServer(session, { groups: options.groups });
  const transport = new JsonRpcStdioTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    // The SDK transport does not notice end of input by itself under every runtime.
    process.stdin.once("end", () => void server.close());
    process.once("SIGINT", () => void server.close());
    process.once("SIGTERM", () => void server.close());
  });
  await server.connect(transport);
  await closed;
  await session.drain(DRAIN_MS);
  session.close();
}
