/**
 * The flameox MCP server over the application services: tools/list and tools/call over
 * the tool registry, resource templates and resources/read. Built on the SDK's low-level
 * `Server` so the JSON Schemas published are exactly the arktype-derived ones.
 *
 * `initialize` and tools/list are answered from this module alone: tools/list from
 * tool-list.json, the registry's entries written at build time (scripts/generate-tool-list.ts;
 * a test keeps the two equal). The tool registry (arktype, every schema), the call path
 * and the resources load in the background once the client has initialized, or on the
 * first request that needs them: building the schemas took seconds of CPU before an
 * agent got its first answer.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { FLAMEOX_VERSION } from "../domain/version.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { progressReporter } from "./progress.ts";
import TOOL_LIST from "./tool-list.json" with { type: "json" };
import type { WorkspaceSession } from "./workspace-session.ts";

const once = <T>(load: () => Promise<T>): (() => Promise<T>) => {
  let loading: Promise<T> | null = null;
  return () => (loading ??= load());
};
/** How long after `initialized` the tools start loading when the client has not asked for tools/list. */
const WARM_UP_DELAY_MS = 250;

const registry = once(() => import("./tool-registry.ts"));
const calls = once(() => import("./call-tool.ts"));
const resources = once(() => import("./resources.ts"));

export function createServer(session: WorkspaceSession): Server {
  const server = new Server({ name: "flameox", version: FLAMEOX_VERSION }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
  // The tools load in the background once the client has its tool list (or shortly after
  // `initialized` if it asks for none): in a compiled binary loading them is one
  // synchronous evaluation of ~1 s that would otherwise hold up that tools/list answer.
  // A failure surfaces on the request that needs the module.
  let warming = false;
  const warmUp = () => {
    if (warming) return;
    warming = true;
    setTimeout(() => void Promise.all([registry(), calls(), resources()]).catch(() => {}), 0);
  };
  server.oninitialized = () => void setTimeout(warmUp, WARM_UP_DELAY_MS);

  server.setRequestHandler(ListToolsRequestSchema, () => {
    warmUp();
    return { tools: TOOL_LIST as Tool[] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = (await registry()).TOOLS_BY_NAME.get(request.params.name);
    // An unknown tool is a protocol error, not a tool result.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(request.params.name)}`);
    const { callTool } = await calls();
    const progress = progressReporter({ progressToken: request.params._meta?.progressToken, send: (n) => extra.sendNotification(n) });
    const answer = callTool(tool, request.params.arguments, { session, signal: extra.signal, progress: progress.report });
    return session.track(answer.then(async (result) => (await progress.settled(), result)));
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [...(await resources()).RESOURCE_TEMPLATES] }));
  // Concrete resources are reached through the templates; mutable state only through tools.
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => (await resources()).readResource(session, request.params.uri));
  return server;
}
