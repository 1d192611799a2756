/**
 * Writes src/mcp/tool-list.json: the MCP tools/list entries exactly as the tool registry
 * builds them (name, description, annotations, input and output JSON Schemas). The server
 * answers tools/list from this file, so a client gets the list without waiting for the
 * ~40 arktype schemas to be built; tests/mcp/tool-list.test.ts fails when the file and
 * the registry differ. Run after changing a tool:
 *
 *   bun scripts/generate-tool-list.ts
 */
import { join } from "node:path";
import { listedTools } from "../src/mcp/tool-registry.ts";

export const TOOL_LIST_PATH = join(import.meta.dir, "..", "src", "mcp", "tool-list.json");

/** The file's text: one-space indentation, so a change to one tool is a readable diff. */
export function toolListText(): string {
  return `${JSON.stringify(listedTools(), null, 1)}\n`;
}

if (import.meta.main) {
  await Bun.write(TOOL_LIST_PATH, toolListText());
  console.log(`wrote ${TOOL_LIST_PATH} (${listedTools().length} tools)`);
}
