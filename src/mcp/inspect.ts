/**
 * `flameox mcp inspect`: starts the server exactly as a stdio client would, connects
 * with the SDK client, and reports what an agent sees: server identity, instructions,
 * tools with annotations and schemas, and resource templates.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { FLAMEOX_VERSION } from "../domain/version.ts";
import { serverCommand } from "../application/server-command.ts";

export interface InspectReport {
  server: { name: string; version: string } | null;
  capabilities: Record<string, unknown> | null;
  instructions: string | null;
  tools: {
    name: string;
    title?: string;
    description?: string;
    annotations?: Record<string, unknown>;
    inputSchema: unknown;
    outputSchema?: unknown;
  }[];
  resource_templates: {
    uriTemplate: string;
    name: string;
    description?: string;
    mimeType?: string;
  }[];
}

export async function inspectServer(
  projectRoot: string,
  groups?: readonly string[],
): Promise<InspectReport> {
  const { command, args } = serverCommand(projectRoot, { tools: groups?.join(",") });
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...getDefaultEnvironment(), NO_COLOR: "1" },
    stderr: "inherit",
  });
  const client = new Client({ name: "flameox-inspect", version: FLAMEOX_VERSION });
  await client.connect(transport);
  try {
    const [tools, templates] = [await client.listTools(), await client.listResourceTemplates()];
    const info = client.getServerVersion();
    return {
      server: info ? { name: info.name, version: info.version } : null,
      capabilities: (client.getServerCapabilities() as Record<string, unknown> | undefined) ?? null,
      instructions: client.getInstructions() ?? null,
      tools: tools.tools,
      resource_templates: templates.resourceTemplates,
    };
  } finally {
    await client.close();
  }
}

export function renderInspect(report: InspectReport): string {
  const flag = (a: Record<string, unknown> | undefined, key: string, letter: string) =>
    a?.[key] ? letter : "-";
  const lines = [
    `server ${report.server?.name ?? "?"} ${report.server?.version ?? "?"}`,
    "",
    "tools (readOnly/destructive/idempotent/openWorld):",
  ];
  for (const tool of report.tools) {
    const a = tool.annotations;
    const hints =
      `${flag(a, "readOnlyHint", "R")}${flag(a, "destructiveHint", "D")}` +
      `${flag(a, "idempotentHint", "I")}${flag(a, "openWorldHint", "O")}`;
    const schema = tool.inputSchema as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    const args = Object.keys(schema.properties ?? {}).map((k) =>
      schema.required?.includes(k) ? k : `${k}?`,
    );
    lines.push(
      `  ${tool.name.padEnd(22)} ${hints}  ` +
        `(${args.join(", ")})${tool.outputSchema ? "" : "  [no outputSchema]"}`,
    );
  }
  lines.push(
    "",
    "resource templates:",
    ...report.resource_templates.map((t) => `  ${t.uriTemplate}  ${t.description ?? ""}`),
  );
  lines.push(
    "",
    "instructions:",
    ...(report.instructions ?? "(none)").split("\n").map((l) => `  ${l}`),
  );
  return lines.join("\n");
}
