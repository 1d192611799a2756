/**
 * A use case's request is one arktype schema: it closes the keys, bounds every value,
 * gives the TypeScript type (`typeof schema.infer`) and, through `toJsonSchema()`, the MCP
 * tool's input schema. Both doors check what they were given through it, so a bad value
 * is refused with the same INVALID_ARGUMENTS error (same message, `details.field` naming
 * the request field) whether it came as a command-line flag or as a tool argument.
 */
import { type, type Type } from "arktype";
import { FlameoxError } from "../../domain/errors.ts";

type ArkErrors = InstanceType<typeof type.errors>;

declare global {
  interface ArkEnv {
    meta(): {
      /**
       * The name a use case's request goes by in errors ("hotspots" → "Invalid hotspots request:
       * …").
       */
      flameox_request?: string;
    };
  }
}

/**
 * Names a request schema. The name lives in the type's own metadata, not beside it:
 * arktype gives two equal definitions one shared type, so the listings of runs and of
 * investigations would otherwise be one schema with one name. jsonSchemaOf leaves it out
 * of a tool's published input.
 */
export function defineRequest<T extends Type>(name: string, schema: T): T {
  return schema.configure({ flameox_request: name }) as T;
}

/** The name a request schema was defined with, if it is one. */
export function requestName(schema: Type): string | undefined {
  return schema.meta.flameox_request;
}

/**
 * The error for a request that does not fit its schema: INVALID_ARGUMENTS listing every
 * problem, `details.field` the first offending field and `details.fields` all of them.
 */
export function invalidRequest(errors: ArkErrors, name: string | undefined): FlameoxError {
  const fields = [...new Set(errors.map((e) => e.path.join(".") || "(request)"))];
  // arktype says an undeclared key "must be removed"; say what that means for a request.
  const problems = errors.map((e) =>
    e.message.replace(
      / must be removed$/,
      ` is not a field of ${name ? `the ${name}` : "this"} request`,
    ),
  );
  return new FlameoxError(
    "INVALID_ARGUMENTS",
    `Invalid ${name ? `${name} ` : ""}request: ${problems.join("; ")}`,
    { details: { field: fields[0], fields } },
  );
}

/**
 * Checks a request given as loose values: keys whose value is undefined (flags not
 * given) are left out first. Returns the typed request or throws `invalidRequest`.
 */
export function checkRequest<T>(schema: Type<T>, raw: Record<string, unknown>): T {
  const given = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
  const checked = schema(given);
  if (checked instanceof type.errors) throw invalidRequest(checked, requestName(schema));
  return checked as T;
}
