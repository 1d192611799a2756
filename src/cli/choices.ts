/** Flag values chosen from a fixed list, refused with the list when they are not on it. */
import { FlameoxError } from "../domain/errors.ts";

export { GRANULARITIES } from "../domain/granularity.ts";

export function oneOf<T extends string>(field: string, values: readonly T[], value: string | undefined): T | undefined {
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) {
    throw new FlameoxError("INVALID_ARGUMENTS", `Expected --${field} to be one of ${values.join(", ")} but found ${JSON.stringify(value)}`, { details: { field } });
  }
  return value as T;
}
