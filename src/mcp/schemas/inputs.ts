/**
 * Tool inputs that are not a use case's own request: no arguments at all, and the import
 * request plus where the file is. Every other tool's input is its use case's request
 * schema (`src/application/requests/`), used as is. Every object rejects unknown keys,
 * every string and number is bounded, and no input anywhere takes a shell string, argv,
 * environment or SQL.
 */
import { type } from "arktype";
import { ImportOptions } from "../../application/import-request.ts";
import { defineRequest } from "../../application/requests/request-schema.ts";

export const NoArguments = type({ "+": "reject" });

/**
 * The import use case's own options (application/import-request.ts), plus where the file
 * is; refused under the same name, so a bad option reads as it does from `flameox import`.
 */
export const ImportArtifactInput = defineRequest(
  "import",
  type({
    "...": ImportOptions,
    "+": "reject",
    path: type("0 < string <= 4096").describe(
      "a file path under the chosen source root (relative paths resolve against it)",
    ),
    "source_root?": type("'project' | 'temp'").describe(
      "project (default: the server's project root) or temp (the system temp directory)",
    ),
  }),
);
