/**
 * The flameox MCP server over the application services: tools/list and tools/call for the
 * tool groups it was started with, resource templates and resources/read. Built on the
 * SDK's low-level `Server` so the JSON Schemas published are exactly the arktype-derived
 * ones.
 *
 * `initialize` and tools/list are answered from this module alone: tools/list from
 * tool-list.json, the registry's entries written at build time (scripts/generate-tool-list.ts;
 * a test keeps the two equal), filtered by group. A call loads only the module that defines
 * its tool (tool-modules.ts), so the first drill-down does not wait for forty tools'
 * schemas, and arktype validates interpreted (application/requests/validator-mode.ts), so building
 * a tool's
 * schemas compiles nothing. The enabled groups' modules, the call path and the analyses
 * warm in the background once the client has its tool list (or shortly after
 * `initialized`), one module graph at a time while no call is running (warm-up.ts).
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
import { instructionsFor } from "./instructions.ts";
import { progressReporter } from "./progress.ts";
import { publishedTool, publishedTools } from "./published-tools.ts";
import { DEFAULT_TOOL_GROUPS, toolNotEnabled, type ToolGroup } from "./tool-groups.ts";
import { loadTool } from "./tool-modules.ts";
import type { WorkspaceSession } from "./workspace-session.ts";
import { warmUpServer } from "./warm-up.ts";

const once = <T>(load: () => Promise<T>): (() => Promise<T>) => {
  let loading: Promise<T> | null = null;
  return () => (loading ??= load());
};
/**
 * How long after `initialized` the tools start loading when the client has not asked for
 * tools/list.
 */
const WARM_UP_DELAY_MS = 250;
/** How long no call must have run before the warm-up evaluates its next module graph. */
const WARM_UP_QUIET_MS = 400;

// Everything loaded after `initialize` passes through the validator mode first: it must be
// set before arktype creates its scopes (see application/requests/validator-mode.ts).
const validatorMode = once(() => import("../application/requests/validator-mode.ts"));
const calls = once(() => validatorMode().then(() => import("./call-tool.ts")));
const envelopes = once(() => validatorMode().then(() => import("./envelope.ts")));
const resources = once(() => validatorMode().then(() => import("./resources.ts")));

/**
 * Counts the tool calls in progress, so the background warm-up can step aside: a call
 * loads what it needs itself, and evaluating unrelated modules on the one thread between
 * two calls an agent makes back to back would only delay the second.
 */
class CallGate {
  private active = 0;
  private lastEnd = 0;

  async run<T>(call: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await call();
    } finally {
      this.active--;
      this.lastEnd = performance.now();
    }
  }

  /** Resolves once no call has been in progress for `quietMs`. */
  async quiet(quietMs: number): Promise<void> {
    for (;;) {
      const wait = this.active > 0 ? quietMs : this.lastEnd + quietMs - performance.now();
      if (wait <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

export interface ServerOptions {
  /** The tool groups published and callable; default: core. */
  groups?: readonly ToolGroup[];
}

export function createServer(session: WorkspaceSession, options: ServerOptions = {}): Server {
  const groups = options.groups ?? DEFAULT_TOOL_GROUPS;
  const tools = publishedTools(groups);
  const server = new Server(
    { name: "flameox", version: FLAMEOX_VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: instructionsFor(groups) },
  );
  // The tools load in the background once the client has its tool list (or shortly after
  // `initialized` if it asks for none): in a compiled binary loading a module graph is one
  // synchronous evaluation that would otherwise hold up that tools/list answer. A failure
  // surfaces on the request that needs the module.
  const calling = new CallGate();
  let warming = false;
  const warmUp = () => {
    if (warming) return;
    warming = true;
    setTimeout(
      () =>
        void warmUpServer({
          groups,
          first: calls,
          last: [resources],
          idle: () => calling.quiet(WARM_UP_QUIET_MS),
        }).catch(() => {}),
      0,
    );
  };
  server.oninitialized = () => void setTimeout(warmUp, WARM_UP_DELAY_MS);

  server.setRequestHandler(ListToolsRequestSchema, () => {
    warmUp();
    return { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    calling.run(async () => {
      const name = request.params.name;
      const published = publishedTool(name);
      // An unknown tool is a protocol error, not a tool result.
      if (!published)
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(name)}`);
      // A known tool of a group this server does not publish is a typed refusal naming the flag.
      if (!groups.includes(published.group))
        return (await envelopes()).failure(toolNotEnabled(name, published.group, groups));
      const [tool, { callTool }] = await Promise.all([
        validatorMode().then(() => loadTool(published.module, name)),
        calls(),
      ]);
      if (!tool)
        throw new McpError(
          ErrorCode.InternalError,
          `Tool ${JSON.stringify(name)} is not in module ${published.module}; regenerate ` +
            `tool-list.json`,
        );
      const progress = progressReporter({
        progressToken: request.params._meta?.progressToken,
        send: (n) => extra.sendNotification(n),
      });
      const answer = callTool(tool, request.params.arguments, {
        session,
        signal: extra.signal,
        progress: progress.report,
      });
      return session.track(answer.then(async (result) => (await progress.settled(), result)));
    }),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [...(await resources()).RESOURCE_TEMPLATES],
  }));
  // Concrete resources are reached through the templates; mutable state only through tools.
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) =>
    (await resources()).readResource(session, request.params.uri),
  );
  return server;
}
