/**
 * Validation without generated code: arktype otherwise compiles a JavaScript validator
 * (`new Function`) for every type it builds, at the moment the type is built. A flameox
 * process checks a handful of values per type (a command's inputs, a tool call's
 * arguments and result), so that compilation was most of the cost of loading arktype and
 * the tool schemas, paid before a command's or an MCP server's first answer; validating
 * interpreted costs well under a millisecond per call. Same checks, same messages.
 *
 * Must be the entry's first import: arktype reads this when its scopes are created.
 */
import { configure } from "arktype/config";

configure({ jitless: true });
