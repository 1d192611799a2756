/**
 * The outputSchema a tool publishes: the envelope and the result's own fields in full
 * (names, types, enum values, descriptions, which are required), and anything nested
 * below that by its type alone. Every tools/list entry is paid for in an agent's context
 * on every turn, and the nested shapes of forty results were most of those bytes; an
 * agent reads nested fields from the results themselves. A long enum is published as its
 * type too: in results those are names an input already lists (the 20-odd metrics, echoed
 * by every drill-down). The brief schema accepts every value the full one accepts (it only
 * drops constraints), and the server still checks each result against the full arktype
 * type before answering.
 */
type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Keywords that describe nested values; dropped where a schema is cut to its type. */
const NESTED = new Set([
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "items",
  "prefixItems",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
]);
const COMBINERS = ["anyOf", "oneOf"] as const;

/** Enums with more values than this are published as their type. */
export const MAX_BRIEF_ENUM = 8;

/**
 * Keeps `levels` levels of `properties` below `schema` (0: the schema's own type only).
 * `items` of an array counts as the array's own level.
 */
export function briefSchema(schema: Schema, levels: number): Schema {
  if (levels <= 0) return typeOnly(schema);
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && isSchema(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          isSchema(child) ? briefSchema(child, levels - 1) : child,
        ]),
      );
    } else if ((key === "items" || key === "additionalProperties") && isSchema(value)) {
      out[key] = briefSchema(value, levels - 1);
    } else if ((COMBINERS as readonly string[]).includes(key) && Array.isArray(value)) {
      out[key] = value.map((branch) => (isSchema(branch) ? briefSchema(branch, levels) : branch));
    } else {
      out[key] = value;
    }
  }
  return withoutLongEnum(out);
}

/** A long enum replaced by the type of its values. */
function withoutLongEnum(schema: Schema): Schema {
  if (!Array.isArray(schema.enum) || schema.enum.length <= MAX_BRIEF_ENUM) return schema;
  const { enum: values, ...rest } = schema;
  return "type" in rest ? rest : { ...rest, type: typesOf(values as unknown[]) };
}

/** The JSON Schema type (or types) of a list of values. */
function typesOf(values: unknown[]): string | string[] {
  const types = [
    ...new Set(
      values.map((v) => (v === null ? "null" : Number.isInteger(v) ? "integer" : typeof v)),
    ),
  ];
  return types.length === 1 ? types[0]! : types;
}

/**
 * The schema without what describes nested values; a choice of branches keeps the union of their
 * types.
 */
function typeOnly(schema: Schema): Schema {
  let out: Schema = {};
  for (const [key, value] of Object.entries(schema)) if (!NESTED.has(key)) out[key] = value;
  out = withoutLongEnum(out);
  if (!("type" in out) && !("enum" in out) && !("const" in out)) {
    const branches = COMBINERS.flatMap((k) =>
      Array.isArray(schema[k]) ? (schema[k] as unknown[]) : [],
    );
    const types = branches.map((b) => (isSchema(b) ? b.type : undefined));
    if (branches.length > 0 && types.every((t) => typeof t === "string" || Array.isArray(t))) {
      const union = [...new Set(types.flat() as string[])];
      out.type = union.length === 1 ? union[0] : union;
    }
  }
  return out;
}
