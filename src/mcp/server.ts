/**
 * The flameox MCP server over the application services: tools/list and tools/call over
 * the tool registry, resource templates and resources/read. Built on the SDK's low-level
 * `Server` so the JSON Schemas published are exactly the arktype-derived ones.
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
} from "@modelcontextprotocol/sdk/types.js";
import { FLAMEOX_VERSION } from "../domain/version.ts";
import { callTool } from "./call-tool.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { progressReporter } from "./progress.ts";
import { readResource, RESOURCE_TEMPLATES } from "./resources.ts";
import { envelopeOf, jsonSchemaOf } from "./schemas/common.ts";
import type { AnyTool } from "./tool.ts";
import { TOOLS } from "./tools/index.ts";
import type { WorkspaceSession } from "./workspace-session.ts";

/** The tools/list entry of a tool: computed once, the same on every call. */
export function describeTool(tool: AnyTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input) as { type: "object"; [key: string]: unknown },
    outputSchema: jsonSchemaOf(envelopeOf(tool.result)) as { type: "object"; [key: string]: unknown },
    annotations: { title: tool.title, ...tool.annotations },
  };
}

export function createServer(session: WorkspaceSession): Server {
  const server = new Server({ name: "flameox", version: FLAMEOX_VERSION }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
  const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));
  const listed = TOOLS.map(describeTool);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name);
    // An unknown tool is a protocol error, not a tool result.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(request.params.name)}`);
    const progress = progressReporter({ progressToken: request.params._meta?.progressToken, send: (n) => extra.sendNotification(n) });
    const answer = callTool(tool, request.params.arguments, { session, signal: extra.signal, progress: progress.report });
    return session.track(answer.then(async (result) => (await progress.settled(), result)));
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [...RESOURCE_TEMPLATES] }));
  // Concrete resources are reached through the templates; mutable state only through tools.
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(session, request.params.uri));
  return server;
}
