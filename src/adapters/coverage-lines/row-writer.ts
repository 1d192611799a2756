/**
 * Appends rows to the `coverage_lines` table with the bounds every coverage adapter
 * shares: line numbers are 32-bit integers (anything else is a malformed file), file
 * paths and names are cut to a fixed size, and the row count stays under the adapter's
 * event limit. Counts what it wrote per file so adapters can report totals.
 */
import type { CellValue } from "../../domain/table-buffer.ts";
import { BoundedRowWriter } from "../common/bounded-rows.ts";
import { parseFailed } from "../json-guard.ts";

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

export class CoverageLineWriter extends BoundedRowWriter {
  private lastFile: string | null = null;
  private lastCut: string | null = null;
  readonly files = new Set<string>();

  private readonly cells: Record<string, CellValue> = {};

  private lineNumber(value: unknown, file: string): number {
    if (
      typeof value !== "number" ||
      !Number.isInteger(value) ||
      value < INT32_MIN ||
      value > INT32_MAX
    ) {
      throw parseFailed(
        this.label,
        `expected the line numbers of ${file} to be 32-bit integers but ` +
          `found ${JSON.stringify(value)}`,
      );
    }
    return value;
  }

  add(row: CoverageRow): void {
    this.checkRoom("coverage rows");
    // Rows come file by file: reuse the cut path string instead of one copy per line.
    if (row.file !== this.lastFile) {
      this.lastFile = row.file;
      this.lastCut = row.file.slice(0, MAX_NAME_CHARS);
      this.files.add(this.lastCut);
    }
    // One row object, refilled: millions of lines are appended and the buffer copies the values.
    const cells = this.cells;
    cells.file = this.lastCut;
    cells.kind = row.kind;
    cells.line = this.lineNumber(row.line, row.file);
    cells.to_line =
      row.to_line === null || row.to_line === undefined
        ? null
        : this.lineNumber(row.to_line, row.file);
    cells.context =
      row.context === null || row.context === undefined
        ? null
        : row.context.length > MAX_NAME_CHARS
          ? row.context.slice(0, MAX_NAME_CHARS)
          : row.context;
    cells.executed = row.executed;
    cells.hits =
      typeof row.hits === "number" && Number.isSafeInteger(row.hits) && row.hits >= 0
        ? row.hits
        : null;
    cells.function =
      row.function === null || row.function === undefined
        ? null
        : row.function.slice(0, MAX_NAME_CHARS);
    cells.branches_covered = countOrNull(row.branches_covered);
    cells.branches_total = countOrNull(row.branches_total);
    this.table.append(cells);
    this.count += 1;
  }
}

function countOrNull(v: number | null | undefined): number | null {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= INT32_MAX ? v : null;
}
