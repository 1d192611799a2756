/**
 * Rewrites a JSON Schema derived from arktype into an equivalent, shorter one. arktype
 * spells a choice of literals as `anyOf` of `{const}` branches and copies a property's
 * description onto every branch, so one metric enum with a description cost ~2 KB of
 * every tool that takes it. The rewrite keeps what validates identically:
 * - `anyOf` of bare `{const}` / `{enum}` branches becomes one `enum`, and of bare `{type}`
 *   branches one `type` array (a null branch joins either);
 * - a branch's description equal to its parent's is dropped;
 * - `anyOf [{type: T, …}, {type: "null"}]` becomes `{type: [T, "null"], …}` (type-specific
 *   keywords such as maxLength or properties do not apply to null);
 * - an `anyOf` left with one branch is that branch.
 */
type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function compactSchema(schema: Schema, parentDescription?: string): Schema {
  let out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && isSchema(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          isSchema(child) ? compactSchema(child) : child,
        ]),
      );
    } else if (
      (key === "items" || key === "additionalProperties" || key === "not") &&
      isSchema(value)
    ) {
      out[key] = compactSchema(value);
    } else if ((key === "anyOf" || key === "oneOf" || key === "allOf") && Array.isArray(value)) {
      const own = typeof schema.description === "string" ? schema.description : parentDescription;
      out[key] = value.map((branch) => (isSchema(branch) ? compactSchema(branch, own) : branch));
    } else {
      out[key] = value;
    }
  }
  if (parentDescription !== undefined && out.description === parentDescription)
    delete out.description;
  out = mergeConstBranches(out);
  out = mergeNullBranch(out);
  return unwrapSingleBranch(out);
}

const only = (b: unknown, key: string): b is Schema =>
  isSchema(b) && key in b && Object.keys(b).length === 1;
const isNull = (b: unknown): boolean => only(b, "type") && (b as Schema).type === "null";

function mergeConstBranches(schema: Schema): Schema {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length < 2) return schema;
  const { anyOf: _, ...rest } = schema;
  if (
    branches.every((b) => only(b, "const") || only(b, "enum") || isNull(b)) &&
    branches.some((b) => !isNull(b))
  ) {
    const values = branches.flatMap((b) =>
      isNull(b) ? [null] : "const" in b ? [b.const] : (b.enum as unknown[]),
    );
    return { ...rest, enum: values };
  }
  if (branches.every((b) => only(b, "type") && typeof b.type === "string") && !("type" in rest)) {
    return { ...rest, type: branches.map((b) => (b as Schema).type) };
  }
  return schema;
}

function mergeNullBranch(schema: Schema): Schema {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return schema;
  const nullAt = branches.findIndex(
    (b) => isSchema(b) && b.type === "null" && Object.keys(b).length === 1,
  );
  if (nullAt < 0) return schema;
  const other = branches[1 - nullAt];
  if (!isSchema(other) || typeof other.type !== "string" || other.type === "null") return schema;
  const { anyOf: _, ...rest } = schema;
  if (Object.keys(other).some((k) => k in rest)) return schema;
  return { ...rest, ...other, type: [other.type, "null"] };
}

function unwrapSingleBranch(schema: Schema): Schema {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 1 || !isSchema(branches[0])) return schema;
  const { anyOf: _, ...rest } = schema;
  if (Object.keys(branches[0]).some((k) => k in rest)) return schema;
  return { ...rest, ...branches[0] };
}
