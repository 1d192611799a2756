/**
 * OTLP attribute values as typed canonical JSON, the same whether they came from OTLP/JSON
 * or protobuf: a list of [key, type, value] in input order, where type is string, int
 * (decimal string: int64 exceeds JSON numbers), double (a number, or "NaN"/"Infinity"/
 * "-Infinity"), bool, bytes (base64), array (list of [type, value]), kvlist (a nested
 * attribute list) or empty (null). Types survive, so `"1"` and `1` stay distinct.
 */
export type TypedValue = [string, unknown];
export type TypedAttribute = [string, string, unknown];

export function canonicalAttributes(attributes: readonly TypedAttribute[]): string {
  return JSON.stringify(attributes);
}

/** A finite double as a number, otherwise its name (JSON has no NaN or Infinity). */
export function doubleValue(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64");
}

/** An OTLP/JSON AnyValue object → typed value. */
export function jsonAnyValue(value: unknown): TypedValue {
  if (typeof value !== "object" || value === null) return ["empty", null];
  const v = value as Record<string, unknown>;
  if ("stringValue" in v) return ["string", String(v.stringValue)];
  if ("intValue" in v) return ["int", jsonInt(v.intValue)];
  if ("doubleValue" in v) return ["double", doubleValue(Number(v.doubleValue))];
  if ("boolValue" in v) return ["bool", v.boolValue === true || v.boolValue === "true"];
  if ("bytesValue" in v) return ["bytes", String(v.bytesValue)];
  if ("arrayValue" in v) {
    const values = (v.arrayValue as { values?: unknown } | null)?.values;
    return ["array", Array.isArray(values) ? values.map(jsonAnyValue) : []];
  }
  if ("kvlistValue" in v) {
    const values = (v.kvlistValue as { values?: unknown } | null)?.values;
    return ["kvlist", jsonAttributes(values)];
  }
  return ["empty", null];
}

/** An OTLP/JSON KeyValue list → typed attributes (a missing list is empty). */
export function jsonAttributes(list: unknown): TypedAttribute[] {
  if (!Array.isArray(list)) return [];
  return list.map((kv) => {
    const entry = (typeof kv === "object" && kv !== null ? kv : {}) as {
      key?: unknown;
      value?: unknown;
    };
    const [type, value] = jsonAnyValue(entry.value);
    return [typeof entry.key === "string" ? entry.key : "", type, value];
  });
}

/** int64 given as a JSON number or decimal string → decimal string. */
export function jsonInt(value: unknown): string {
  try {
    return BigInt(typeof value === "number" ? Math.trunc(value) : String(value ?? "0")).toString();
  } catch {
    return String(value);
  }
}
