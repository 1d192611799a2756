/**
 * What an import may say about the file it brings in, as one schema: the CLI and the MCP
 * server both validate through it (the MCP tool's input schema is built from it, the
 * CLI's flags are checked with `parseImportOptions`), so a bad kind, producer, media type,
 * sensitivity or adapter name is refused the same way (INVALID_ARGUMENTS naming the field)
 * whichever door it came through. The use case's request type is inferred from it.
 */
import { type } from "arktype";
import { FlameoxError } from "../domain/errors.ts";
import { ARTIFACT_KINDS, SENSITIVITIES } from "../domain/records.ts";

export const ImportOptions = type({
  "+": "reject",
  "kind?": type.enumerated(...ARTIFACT_KINDS).describe("the artifact kind (default: detected)"),
  "media_type?": type(/^[a-z0-9!#$&^_.+-]{1,63}\/[a-z0-9!#$&^_.+-]{1,63}$/).describe("a media type such as application/json"),
  "producer?": type("0 < string <= 100").describe("the tool that wrote the file, e.g. node or chrome"),
  "producer_version?": type("0 < string <= 100").describe("the producer's version"),
  "sensitivity?": type.enumerated(...SENSITIVITIES).describe("normal (default), internal or sensitive"),
  "adapter?": type(/^[a-z0-9][a-z0-9._-]{0,63}$/).describe("an adapter name that overrides format detection, e.g. v8-cpuprofile or chrome-trace"),
});
export type ImportOptions = typeof ImportOptions.infer;

/**
 * Checks options given as loose values (command-line flags); absent (undefined) values are
 * left out. Throws INVALID_ARGUMENTS naming the first bad field (`fieldNames` maps a
 * schema key to the caller's own spelling of it, such as `--media-type`).
 */
export function parseImportOptions(raw: Record<string, unknown>, fieldNames: Partial<Record<keyof ImportOptions, string>> = {}): ImportOptions {
  const given = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
  const checked = ImportOptions(given);
  if (!(checked instanceof type.errors)) return checked;
  const spell = (key: string): string => fieldNames[key as keyof ImportOptions] ?? key;
  const fields = [...new Set(checked.map((e) => spell(e.path.join(".")) || "(options)"))];
  const problems = checked.map((e) => (e.path.length > 0 ? `${spell(e.path.join("."))} ${e.problem}` : e.message));
  throw new FlameoxError("INVALID_ARGUMENTS", `Invalid import options: ${problems.join("; ")}`, { details: { field: fields[0], fields } });
}
