/**
 * The tools as the server publishes and dispatches them: each tool's tools/list entry
 * (its arktype input and result types turned into JSON Schema) and a lookup by name.
 * Loading this module builds every schema, so the server loads it after answering
 * `initialize`, not before.
 */
import { envelopeOf, jsonSchemaOf } from "./schemas/common.ts";
import type { AnyTool } from "./tool.ts";
import { TOOLS } from "./tools/index.ts";

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

export const TOOLS_BY_NAME: ReadonlyMap<string, AnyTool> = new Map(TOOLS.map((tool) => [tool.name, tool]));

let listed: ReturnType<typeof describeTool>[] | null = null;

/** Every tool's entry, in registry order; built on the first tools/list. */
export function listedTools(): ReturnType<typeof describeTool>[] {
  listed ??= TOOLS.map(describeTool);
  return listed;
}
