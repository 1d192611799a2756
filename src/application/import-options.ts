/**
 * The CLI's door to the import request schema: flags are checked through the one arktype
 * schema (`import-request.ts`) whenever any is given. A plain `flameox import FILE` has
 * nothing to check, so it does not load arktype (~0.2 s of CPU) before the copy begins.
 */
import type { ImportOptions } from "./import-request.ts";

export async function checkImportOptions(raw: Record<string, unknown>): Promise<ImportOptions> {
  const given = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
  if (Object.keys(given).length === 0) return {};
  // Interpreted, as the MCP server validates, so a refusal reads the same from both doors.
  await import("./requests/validator-mode.ts");
  const { parseImportOptions } = await import("./import-request.ts");
  return parseImportOptions(given);
}
