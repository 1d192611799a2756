/**
 * Validation without generated code, for the MCP server: arktype otherwise compiles a
 * JavaScript validator (`new Function`) for every type it builds, at the moment the type
 * is built. A call checks a handful of values per type (its arguments and its result), so
 * that compilation was most of the cost of loading arktype and a tool's schemas, paid
 * before the first answer; validating interpreted costs well under a millisecond per
 * call. Same checks, same messages.
 *
 * Loaded before anything that loads arktype (server.ts chains every lazy load after it),
 * since arktype reads this when its scopes are created; and after `initialize`, since
 * importing arktype's config costs ~10 ms. Not set for CLI commands: those that never
 * validate (status, runs list) would pay that too.
 */
import { configure } from "arktype/config";

configure({ jitless: true });
