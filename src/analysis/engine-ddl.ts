/**
 * SQL text helpers for the engine: identifier quoting, column definitions for the schema
 * anchor of a table, and the read-only statement check of `AnalysisEngine.query`.
 */
import { Type, type DataType, type Schema as ArrowSchema } from "apache-arrow/Arrow.dom";
import {
  PROVENANCE_COLUMNS,
  type ColumnSpec,
  type ColumnType,
  type TableSchema,
} from "../domain/evidence-schema.ts";

/**
 * What a table must look like when its files are absent or older: an evidence TableSchema
 * (stored layout = provenance columns + its columns), an explicit column list, or an Arrow
 * schema (apache-arrow 21, e.g. `evidenceArrowSchema(...)`).
 */
export type TableShape = TableSchema | readonly ColumnSpec[] | ArrowSchema;

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const SQL_TYPES: Record<ColumnType, string> = {
  utf8: "VARCHAR",
  int32: "INTEGER",
  int64: "BIGINT",
  float64: "DOUBLE",
  bool: "BOOLEAN",
  list_utf8: "VARCHAR[]",
};

function isColumnList(shape: TableShape): shape is readonly ColumnSpec[] {
  return Array.isArray(shape);
}

export function columnDefinitions(shape: TableShape): string {
  const specs = (cols: readonly ColumnSpec[]) =>
    cols.map((c) => [c.name, SQL_TYPES[c.type]] as const);
  const defs = isColumnList(shape)
    ? specs(shape)
    : "fields" in shape
      ? shape.fields.map((f) => [f.name, arrowSqlType(f.type)] as const)
      : specs([...PROVENANCE_COLUMNS, ...shape.columns]);
  if (defs.length === 0) throw new TypeError("A table shape needs at least one column");
  return defs.map(([name, type]) => `${quoteIdent(name)} ${type}`).join(", ");
}

function arrowSqlType(type: DataType): string {
  switch (type.typeId) {
    case Type.Utf8:
    case Type.LargeUtf8:
      return "VARCHAR";
    case Type.Bool:
      return "BOOLEAN";
    case Type.Int: {
      const { bitWidth, isSigned } = type as DataType<Type.Int> & {
        bitWidth: number;
        isSigned: boolean;
      };
      const base = (
        { 8: "TINYINT", 16: "SMALLINT", 32: "INTEGER", 64: "BIGINT" } as Record<number, string>
      )[bitWidth];
      if (!base) break;
      return isSigned ? base : `U${base}`;
    }
    case Type.Float:
      return (type as DataType & { precision: number }).precision === 2 ? "DOUBLE" : "FLOAT";
    case Type.List: {
      const child = type.children[0];
      if (child) return `${arrowSqlType(child.type)}[]`;
      break;
    }
    case Type.Dictionary:
      return arrowSqlType((type as DataType & { dictionary: DataType }).dictionary);
  }
  throw new TypeError(`No SQL type for Arrow type ${String(type)}`);
}

/** Statements that read; a prepared statement is always exactly one statement. */
const READ_KEYWORDS = new Set([
  "SELECT",
  "WITH",
  "FROM",
  "VALUES",
  "TABLE",
  "DESCRIBE",
  "SHOW",
  "SUMMARIZE",
  "PIVOT",
  "UNPIVOT",
]);

/** First keyword after leading whitespace, comments and opening parentheses. */
export function leadingKeyword(sql: string): string {
  const stripped = sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|\()*/, "");
  return /^[A-Za-z_]+/.exec(stripped)?.[0].toUpperCase() ?? "";
}

export function isReadStatement(sql: string): boolean {
  return READ_KEYWORDS.has(leadingKeyword(sql));
}
