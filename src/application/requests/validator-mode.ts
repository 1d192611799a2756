/**
 * Validation without generated code, for the MCP server and for the CLI commands that
 * check requests. arktype otherwise compiles a JavaScript validator (`new Function`) for
 * every type it builds, at the moment the type is built. A call checks a handful of values
 * per type (its arguments and its result), so that compilation was most of the cost of
 * loading arktype and a tool's schemas, paid before the first answer; validating
 * interpreted costs well under a millisecond per call.
 *
 * Both doors must run in the same mode: the compiled and the interpreted validator word
 * some refusals differently (a described union of literals is named by its description
 * when interpreted and by its values when compiled), and a request refused through the
 * CLI and through MCP must read the same.
 *
 * Loaded before anything that loads arktype, since arktype reads this when its scopes are
 * created: the MCP server chains every lazy load after it (and loads it after
 * `initialize`, since importing arktype's config costs ~10 ms); the CLI loads it before a
 * command module that checks requests. Not loaded for CLI commands that never validate
 * (status, a plain import), which would pay that too.
 */
import { configure } from "arktype/config";

configure({ jitless: true });
