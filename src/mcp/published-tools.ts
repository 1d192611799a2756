/**
 * The tools/list entries as published, read from tool-list.json (written at build time by
 * scripts/generate-tool-list.ts), and which of them a server with given groups publishes.
 * Nothing here builds a schema: the server answers tools/list and routes a call to its
 * tool's module from this data alone.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import TOOL_LIST from "./tool-list.json" with { type: "json" };
import type { ToolGroup } from "./tool-groups.ts";
import type { ToolModule } from "./tool-modules.ts";

export interface PublishedTool {
  group: ToolGroup;
  module: ToolModule;
  tool: Tool;
}

const PUBLISHED = TOOL_LIST as unknown as PublishedTool[];
const BY_NAME = new Map(PUBLISHED.map((entry) => [entry.tool.name, entry]));

/** The tools/list a server with these groups answers, in registry order. */
export function publishedTools(groups: readonly ToolGroup[]): Tool[] {
  return PUBLISHED.filter((entry) => groups.includes(entry.group)).map((entry) => entry.tool);
}

/** A tool's published entry, whatever its group; undefined for an unknown name. */
export function publishedTool(name: string): PublishedTool | undefined {
  return BY_NAME.get(name);
}
