/**
 * The CLI's commands load lazily by export name (src/cli/main.ts); a misspelt name would
 * only show up when that command is run. Every entry must resolve to a command with a
 * description and a handler or subcommands.
 */
import { describe, expect, test } from "bun:test";
import { COMMANDS, main } from "../../src/cli/main.ts";

describe("CLI command table", () => {
  test("every lazily loaded command resolves to a command definition", async () => {
    const subs = main.subCommands as Record<
      string,
      () => Promise<{ meta?: unknown; run?: unknown; subCommands?: unknown }>
    >;
    expect(Object.keys(subs).length).toBeGreaterThanOrEqual(21);
    for (const [name, load] of Object.entries(subs)) {
      const command = await load();
      expect(command, name).toBeDefined();
      const meta = (typeof command.meta === "function" ? await command.meta() : command.meta) as
        | { description?: string }
        | undefined;
      expect(typeof meta?.description, name).toBe("string");
      expect(command.run !== undefined || command.subCommands !== undefined, name).toBe(true);
      // The top-level usage is rendered from the table without loading commands; it must say what
      // the command says first.
      expect(COMMANDS[name]!.description, name).toBe(meta!.description!.split("\n")[0]!);
    }
  }, 30_000);
});
