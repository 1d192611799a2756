/** Structured CLI inputs: a JSON object given inline, or `@file` to read it from a file. */
import { readFileSync } from "node:fs";
import { FlameoxError } from "../domain/errors.ts";

export function parseJsonObject(
  value: string | undefined,
  field: string,
): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let text = value;
  if (value.startsWith("@")) {
    try {
      text = readFileSync(value.slice(1), "utf8");
    } catch (error) {
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        `Cannot read --${field} ` +
          `from ${value.slice(1)}: ` +
          `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        { details: { field } },
      );
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Cannot parse --${field}: ${(error as Error).message}`,
      { details: { field } },
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected --${field} to be a JSON object but ` +
        `found ${Array.isArray(parsed) ? "an array" : typeof parsed}`,
      { details: { field } },
    );
  }
  return parsed as Record<string, unknown>;
}

/** A `<structured-input>`: a JSON string, or `@file` to read it from a file. */
export function structuredInput(value: string, field: string): Record<string, unknown> {
  let text = value;
  if (value.startsWith("@")) text = readFileSync(value.slice(1), "utf8");
  try {
    const parsed = JSON.parse(text);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new Error("not an object");
    return parsed;
  } catch (error) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected ${field} to be a JSON object or @file but it is not (${(error as Error).message})`,
      { details: { field } },
    );
  }
}
