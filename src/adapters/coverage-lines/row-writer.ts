/**
 * Appends rows to the `coverage_lines` table with the bounds every coverage adapter
 * shares: line numbers are 32-bit integers (anything else is a malformed file), file
 * paths and names are cut to a fixed size, and the row count stays under the adapter's
 * event limit. Counts what it wrote per file so adapters can report totals.
 */
import type { TableBuffer } from "../../domain/table-buffer.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";

const MAX_NAME_CHARS = 4096;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

export interface CoverageRow {
  file: string;
  kind: "line" | "arc";
  line: number;
  to_line?: number | null;
  context?: string | null;
  executed: boolean;
  hits?: number | null;
  function?: string | null;
  branches_covered?: number | null;
  branches_total?: number | null;
}

export class CoverageLineWriter {
  private count = 0;
  private lastFile: string | null = null;
  private lastCut: string | null = null;
  readonly files = new Set<string>();
  constructor(
    private readonly table: TableBuffer,
    private readonly label: string,
    private readonly maxRows: number,
  ) {}

  get rows(): number {
    return this.count;
  }

  private lineNumber(value: unknown, what: string): number {
    if (typeof value !== "number" || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
      throw parseFailed(this.label, `expected ${what} to be a 32-bit integer line number but found ${JSON.stringify(value)}`);
    }
    return value;
  }

  add(row: CoverageRow): void {
    if (this.count >= this.maxRows) throw tooLarge(this.label, "coverage rows", this.count + 1, this.maxRows);
    // Rows come file by file: reuse the cut path string instead of one copy per line.
    if (row.file !== this.lastFile) {
      this.lastFile = row.file;
      this.lastCut = row.file.slice(0, MAX_NAME_CHARS);
      this.files.add(this.lastCut);
    }
    const count = (v: number | null | undefined) => (typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= INT32_MAX ? v : null);
    this.table.append({
      file: this.lastCut,
      kind: row.kind,
      line: this.lineNumber(row.line, `a line of ${row.file}`),
      to_line: row.to_line === null || row.to_line === undefined ? null : this.lineNumber(row.to_line, `an arc target of ${row.file}`),
      context: row.context === null || row.context === undefined ? null : row.context.slice(0, MAX_NAME_CHARS),
      executed: row.executed,
      hits: typeof row.hits === "number" && Number.isSafeInteger(row.hits) && row.hits >= 0 ? row.hits : null,
      function: row.function === null || row.function === undefined ? null : row.function.slice(0, MAX_NAME_CHARS),
      branches_covered: count(row.branches_covered),
      branches_total: count(row.branches_total),
    });
    this.count += 1;
  }
}
