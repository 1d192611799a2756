/**
 * Writes src/mcp/tool-list.json: every tool's MCP tools/list entry exactly as the tool
 * registry builds it (name, description, annotations, input and output JSON Schemas),
 * with the group that publishes it (src/mcp/tool-groups.ts) and the module that defines
 * it (src/mcp/tool-modules.ts). The server answers tools/list from this file, filtered by
 * its enabled groups, and loads only the module of the tool called, so a client gets the
 * list without waiting for the ~40 arktype schemas to be built;
 * tests/mcp/tool-list.test.ts fails when the file and the registry differ. Run after
 * changing a tool:
 *
 *   bun scripts/generate-tool-list.ts
 */
import { join } from "node:path";
import { groupOfTool, TOOL_GROUP_NAMES, TOOL_GROUPS } from "../src/mcp/tool-groups.ts";
import { TOOL_MODULES, type ToolModule, toolsOfModule } from "../src/mcp/tool-modules.ts";
import { listedTools } from "../src/mcp/tool-registry.ts";
import type { PublishedTool } from "../src/mcp/published-tools.ts";

export const TOOL_LIST_PATH = join(import.meta.dir, "..", "src", "mcp", "tool-list.json");

/** Every tool's entry with its group and module; throws when a tool has no group or module. */
export async function publishedToolList(): Promise<PublishedTool[]> {
  const moduleOf = new Map<string, ToolModule>();
  for (const [module, load] of Object.entries(TOOL_MODULES) as [
    ToolModule,
    () => Promise<Record<string, unknown>>,
  ][]) {
    for (const tool of toolsOfModule(await load())) moduleOf.set(tool.name, module);
  }
  const tools = listedTools();
  const names = new Set(tools.map((t) => t.name));
  for (const group of TOOL_GROUP_NAMES) {
    const stray = TOOL_GROUPS[group].tools.filter((name) => !names.has(name));
    if (stray.length > 0)
      throw new Error(
        `tool group ${group} names tools the registry does not have: ${stray.join(", ")}`,
      );
  }
  return tools.map((tool) => {
    const group = groupOfTool(tool.name);
    if (!group)
      throw new Error(`${tool.name} is in no tool group: add it to one in src/mcp/tool-groups.ts`);
    const module = moduleOf.get(tool.name);
    if (!module)
      throw new Error(`${tool.name} is not exported by any module in src/mcp/tool-modules.ts`);
    return { group, module, tool };
  });
}

/** The file's text: one-space indentation, so a change to one tool is a readable diff. */
export async function toolListText(): Promise<string> {
  return `${JSON.stringify(await publishedToolList(), null, 1)}\n`;
}

if (import.meta.main) {
  const text = await toolListText();
  await Bun.write(TOOL_LIST_PATH, text);
  console.log(`wrote ${TOOL_LIST_PATH} (${(JSON.parse(text) as unknown[]).length} tools)`);
}
