/**
 * Reads the fields of an investigation record's loose input, refusing a missing, oversized or
 * unknown value with INVALID_ARGUMENTS naming the field.
 */
import { FlameoxError } from "../../domain/errors.ts";
import {
  EVIDENCE_REF_TYPES,
  EVIDENCE_RELATIONS,
  type EvidenceRef,
} from "../../storage/investigation-records.ts";

export const bad = (field: string, message: string) =>
  new FlameoxError("INVALID_ARGUMENTS", message, { details: { field } });
export function str(input: Record<string, unknown>, field: string, required: true): string;
export function str(input: Record<string, unknown>, field: string, required: false): string | null;
export function str(
  input: Record<string, unknown>,
  field: string,
  required: boolean,
): string | null {
  const v = input[field];
  if (v === undefined || v === null) {
    if (required) throw bad(field, `Expected ${field} but it is missing`);
    return null;
  }
  if (typeof v !== "string" || v.length === 0 || v.length > 4000)
    throw bad(field, `Expected ${field} to be a non-empty string of at most 4000 characters`);
  return v;
}
export function oneOf<T extends string>(
  input: Record<string, unknown>,
  field: string,
  allowed: readonly T[],
  fallback?: T,
): T {
  const v = input[field] ?? fallback;
  if (typeof v !== "string" || !(allowed as readonly string[]).includes(v))
    throw bad(
      field,
      `Expected ${field} to be one of ${allowed.join(", ")} but found ${JSON.stringify(v)}`,
    );
  return v as T;
}
export function revisionOf(input: Record<string, unknown>): number | null {
  const v = input.expected_revision;
  if (v === undefined || v === null) return null;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1)
    throw bad(
      "expected_revision",
      `Expected expected_revision to be a positive integer but found ${JSON.stringify(v)}`,
    );
  return v;
}
export function refsOf(input: Record<string, unknown>): EvidenceRef[] {
  const v = input.evidence_refs ?? [];
  if (!Array.isArray(v) || v.length > 1000)
    throw bad("evidence_refs", "Expected evidence_refs to be an array of at most 1000 references");
  return v.map((r) => {
    if (r === null || typeof r !== "object")
      throw bad("evidence_refs", "Expected each evidence reference to be an object");
    const o = r as Record<string, unknown>;
    return {
      ref_type: oneOf(o, "ref_type", EVIDENCE_REF_TYPES),
      ref_id: str(o, "ref_id", true),
      relation: oneOf(o, "relation", EVIDENCE_RELATIONS, "supports"),
    };
  });
}
