/**
 * Column-oriented row accumulator for one evidence table. Adapters append rows; the
 * storage layer turns the columns into Arrow vectors without a second per-row pass.
 * Values are checked against the column type as they arrive, so a bad adapter fails at
 * the row that is wrong rather than at Parquet write time.
 */
import type { ColumnSpec, TableSchema } from "./evidence-schema.ts";

export type CellValue = string | number | bigint | boolean | string[] | null | undefined;

export class TableBuffer {
  readonly schema: TableSchema;
  readonly columns: Map<string, CellValue[]>;
  // Parallel arrays instead of per-row Map lookups: append() runs millions of times.
  private readonly specs: readonly ColumnSpec[];
  private readonly names: readonly string[];
  private readonly values: CellValue[][];
  private rows = 0;

  constructor(schema: TableSchema) {
    this.schema = schema;
    this.specs = schema.columns;
    this.names = schema.columns.map((col) => col.name);
    this.values = schema.columns.map(() => []);
    this.columns = new Map(this.names.map((name, i) => [name, this.values[i]!]));
  }

  get rowCount(): number {
    return this.rows;
  }

  append(row: Record<string, CellValue>): void {
    const { specs, names, values } = this;
    for (let i = 0; i < specs.length; i++) {
      const value = row[names[i]!];
      values[i]!.push(checkCell(this.schema.name, specs[i]!, value));
    }
    this.rows += 1;
  }

  column(name: string): CellValue[] {
    const values = this.columns.get(name);
    if (!values) throw new RangeError(`Table ${this.schema.name} has no column ${name}`);
    return values;
  }
}

function checkCell(table: string, col: ColumnSpec, value: CellValue): CellValue {
  // Fast paths for the overwhelmingly common well-typed cells.
  if (col.type === "utf8" && typeof value === "string") return value;
  if (
    (col.type === "int64" || col.type === "int32") &&
    typeof value === "number" &&
    Number.isInteger(value)
  )
    return value;
  if (value === null || value === undefined) {
    if (!col.nullable)
      throw new TypeError(`Expected ${table}.${col.name} to be set but found ${String(value)}`);
    return null;
  }
  switch (col.type) {
    case "utf8":
      if (typeof value !== "string")
        throw new TypeError(
          `Expected ${table}.${col.name} to be a string but found ${typeof value}`,
        );
      return value;
    case "int32":
    case "int64":
      if (typeof value === "bigint") return value;
      if (typeof value !== "number" || !Number.isInteger(value)) {
        throw new TypeError(
          `Expected ${table}.${col.name} to be an integer but found ${String(value)}`,
        );
      }
      return value;
    case "float64":
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw new TypeError(
          `Expected ${table}.${col.name} to be a finite number but found ${String(value)}`,
        );
      }
      return value;
    case "bool":
      if (typeof value !== "boolean")
        throw new TypeError(`Expected ${table}.${col.name} to be a boolean`);
      return value;
    case "list_utf8":
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
        throw new TypeError(`Expected ${table}.${col.name} to be a list of strings`);
      }
      return value;
  }
}
