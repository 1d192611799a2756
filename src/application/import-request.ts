/**
 * What an import may say about the file it brings in, as one schema: the CLI and the MCP
 * server both validate through it (the MCP tool's input schema is built from it, the
 * CLI's flags are checked with `parseImportOptions`), so a bad kind, producer, media type,
 * sensitivity or adapter name is refused the same way (INVALID_ARGUMENTS naming the field)
 * whichever door it came through. The use case's request type is inferred from it.
 */
import { type } from "arktype";
import { ARTIFACT_KINDS, SENSITIVITIES } from "../domain/records.ts";
import { checkRequest, defineRequest } from "./requests/request-schema.ts";

export const ImportOptions = defineRequest(
  "import",
  type({
    "+": "reject",
    "kind?": type.enumerated(...ARTIFACT_KINDS).describe("the artifact kind (default: detected)"),
    "media_type?": type(/^[a-z0-9!#$&^_.+-]{1,63}\/[a-z0-9!#$&^_.+-]{1,63}$/).describe(
      "a media type such as application/json",
    ),
    "producer?": type("0 < string <= 100").describe(
      "the tool that wrote the file, e.g. node or chrome",
    ),
    "producer_version?": type("0 < string <= 100").describe("the producer's version"),
    "sensitivity?": type
      .enumerated(...SENSITIVITIES)
      .describe("normal (default), internal or sensitive"),
    "adapter?": type(/^[a-z0-9][a-z0-9._-]{0,63}$/).describe(
      "an adapter name that overrides format detection, e.g. v8-cpuprofile or chrome-trace",
    ),
  }),
);
export type ImportOptions = typeof ImportOptions.infer;

/**
 * Checks options given as loose values (command-line flags); absent (undefined) values are
 * left out. Throws INVALID_ARGUMENTS naming the first bad field as the MCP tool names it.
 */
export function parseImportOptions(raw: Record<string, unknown>): ImportOptions {
  return checkRequest(ImportOptions, raw);
}
