/**
 * Converts DuckDB-WASM results to plain JSON-safe values and checks bound parameters.
 *
 * DuckDB-WASM returns Arrow tables built with its own bundled apache-arrow (17), so values
 * are recognised by Arrow type id (stable across versions), never with `instanceof`.
 */
import { Type } from "apache-arrow/Arrow.dom";

/** The parts of an Arrow (any version) table and type that conversion needs. */
export interface ArrowTypeLike {
  readonly typeId: number;
  readonly scale?: number;
  readonly children?: readonly { readonly name: string; readonly type: ArrowTypeLike }[];
}
export interface ArrowTableLike {
  readonly numRows: number;
  readonly schema: {
    readonly fields: readonly { readonly name: string; readonly type: ArrowTypeLike }[];
  };
  getChildAt(index: number): { get(index: number): unknown } | null;
}

type Convert = (value: unknown) => unknown;

export function tableToRows(table: ArrowTableLike): Record<string, unknown>[] {
  const fields = table.schema.fields;
  const columns = fields.map((field, i) => ({
    name: field.name,
    vector: table.getChildAt(i),
    convert: converterFor(field.type),
  }));
  const rows: Record<string, unknown>[] = new Array(table.numRows);
  for (let r = 0; r < table.numRows; r++) {
    const row: Record<string, unknown> = {};
    for (const col of columns) row[col.name] = col.convert(col.vector?.get(r) ?? null);
    rows[r] = row;
  }
  return rows;
}

/** bigint -> number when exactly representable, else its decimal string. */
export function bigintToPlain(value: bigint): number | string {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value.toString();
}

function converterFor(type: ArrowTypeLike): Convert {
  switch (type.typeId) {
    case Type.Decimal:
      return nullSafe((v) => decimalToPlain(v as Uint32Array, type.scale ?? 0));
    case Type.List:
    case Type.FixedSizeList: {
      const item = converterFor(type.children?.[0]?.type ?? { typeId: Type.Null });
      return nullSafe((v) => Array.from(v as Iterable<unknown>, item));
    }
    case Type.Struct: {
      const children = (type.children ?? []).map((c) => ({
        name: c.name,
        convert: converterFor(c.type),
      }));
      return nullSafe((v) => {
        const row = v as Record<string, unknown>;
        return Object.fromEntries(children.map((c) => [c.name, c.convert(row[c.name] ?? null)]));
      });
    }
    case Type.Binary:
    case Type.LargeBinary:
    case Type.FixedSizeBinary:
      return nullSafe((v) => Buffer.from(v as Uint8Array).toString("base64"));
    default:
      return scalarToPlain;
  }
}

function nullSafe(convert: Convert): Convert {
  return (v) => (v === null || v === undefined ? null : convert(v));
}

function scalarToPlain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return bigintToPlain(value);
  // JSON has no NaN/Infinity; keep their meaning as text rather than turning them into null.
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "object" && "toJSON" in value && typeof value.toJSON === "function")
    return value.toJSON();
  return value;
}

/**
 * DuckDB sends HUGEINT (e.g. SUM of BIGINT) and DECIMAL as Arrow Decimal128: four
 * little-endian 32-bit words, two's complement. Integers stay exact (number or string).
 */
function decimalToPlain(words: Uint32Array, scale: number): number | string {
  let big = 0n;
  for (let i = words.length - 1; i >= 0; i--) big = (big << 32n) | BigInt(words[i]!);
  big = BigInt.asIntN(32 * words.length, big);
  if (scale === 0) return bigintToPlain(big);
  const negative = big < 0n;
  const digits = (negative ? -big : big).toString().padStart(scale + 1, "0");
  return Number(`${negative ? "-" : ""}${digits.slice(0, -scale)}.${digits.slice(-scale)}`);
}

export type BoundParam = string | number | boolean | null;

/**
 * DuckDB-WASM serialises parameters as JSON, so bigint cannot pass as-is. An unsafe bigint
 * goes as its decimal string; DuckDB casts it to the parameter's inferred type (e.g.
 * BIGINT in `ts_ns > ?`) exactly.
 */
export function toBoundParam(value: unknown, index: number): BoundParam {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "bigint") return bigintToPlain(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new TypeError(`Query parameter ${index + 1} must be finite but is ${value}`);
    return value;
  }
  throw new TypeError(
    `Query parameter ${index + 1} must be a string, number, bigint, boolean or null but ` +
      `is ${typeof value}`,
  );
}
