/**
 * The server answers tools/list from src/mcp/tool-list.json, written at build time from
 * the tool registry. It must be exactly what the registry builds now, or an agent would be
 * shown schemas the server no longer checks against.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { TOOL_LIST_PATH, toolListText } from "../../scripts/generate-tool-list.ts";

describe("published tool list", () => {
  test(
    "tool-list.json is the registry's tools/list (regenerate with `bun " +
      "scripts/generate-tool-list.ts`)",
    async () => {
      const published = readFileSync(TOOL_LIST_PATH, "utf8");
      const built = await toolListText();
      // Compare per tool first, so a failure names the tool that drifted.
      const byName = (text: string) =>
        new Map(
          (JSON.parse(text) as { tool: { name: string } }[]).map((t) => [
            t.tool.name,
            JSON.stringify(t),
          ]),
        );
      const want = byName(built);
      const have = byName(published);
      expect([...have.keys()]).toEqual([...want.keys()]);
      for (const [name, entry] of want) expect(have.get(name), name).toBe(entry);
      expect(published).toBe(built);
    },
  );
});
