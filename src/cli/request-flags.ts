/**
 * Command-line flags arrive as text; a use case's request takes numbers. A flag that
 * reads as a number is passed as one, anything else as the text given, so the request
 * schema (not the CLI) says what the value must be, in the same words MCP callers see.
 */
export function numberFlag(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
}

/**
 * Every positional a command took (citty keeps the first under its name and all of them in `_`).
 */
export function positionals(args: { _?: unknown }, first: string): string[] {
  const all = args._ as string[] | undefined;
  return all && all.length > 0 ? all : [first];
}
