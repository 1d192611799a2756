/**
 * Canonical JSON digest: keys sorted, no whitespace, non-finite numbers refused. Used for
 * commit ids, manifest digests and cursor filter bindings, so the same content always
 * gets the same id regardless of key order.
 */
import { createHash } from "node:crypto";

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

export function digestOf(value: unknown): string {
  return "sha256:" + createHash("sha256").update(canonicalJson(value)).digest("hex");
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`Cannot digest a non-finite number: ${value}`);
  }
  if (typeof value === "bigint") return value.toString();
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
