/**
 * The tools as the server publishes them: each tool's tools/list entry (its arktype input
 * turned into JSON Schema, and its result wrapped in the envelope, published brief) and a
 * lookup by name. Loading this module builds every schema; the server never loads it:
 * it answers tools/list from tool-list.json, which scripts/generate-tool-list.ts writes
 * from here, and loads one tool module per call (tool-modules.ts).
 */
import { briefSchema } from "./schemas/brief-schema.ts";
import { envelopeOf, jsonSchemaOf } from "./schemas/common.ts";
import type { AnyTool } from "./tool.ts";
import { TOOLS } from "./tools/index.ts";

/**
 * Levels of the outputSchema published in full: the envelope's fields and the result's
 * own fields; deeper values by type (see brief-schema.ts).
 */
export const OUTPUT_SCHEMA_LEVELS = 2;

/** The full outputSchema of a tool: the envelope around its result type, every level. */
export function fullOutputSchema(tool: AnyTool): { type: "object"; [key: string]: unknown } {
  return jsonSchemaOf(envelopeOf(tool.result)) as { type: "object"; [key: string]: unknown };
}

/**
 * The published outputSchema: brief, and the error payload by its type and description
 * alone. That payload is the same for every tool and a client checks only successful
 * results against the schema, so spelling out its fields in each of forty tools cost
 * context and checked nothing; its description names them.
 */
function publishedOutputSchema(tool: AnyTool): { type: "object"; [key: string]: unknown } {
  const brief = briefSchema(fullOutputSchema(tool), OUTPUT_SCHEMA_LEVELS);
  const fields = brief.properties as Record<string, Record<string, unknown>>;
  return {
    ...brief,
    type: "object",
    properties: { ...fields, error: briefSchema(fields.error!, 0) },
  };
}

/** The tools/list entry of a tool: computed once, the same on every call. */
export function describeTool(tool: AnyTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input) as { type: "object"; [key: string]: unknown },
    outputSchema: publishedOutputSchema(tool),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

export type ToolEntry = ReturnType<typeof describeTool>;

export const TOOLS_BY_NAME: ReadonlyMap<string, AnyTool> = new Map(
  TOOLS.map((tool) => [tool.name, tool]),
);

let listed: ToolEntry[] | null = null;

/** Every tool's entry, in registry order. */
export function listedTools(): ToolEntry[] {
  listed ??= TOOLS.map(describeTool);
  return listed;
}
