/**
 * Rows appended to one table under an adapter's row limit, handed over in batches: the
 * bookkeeping the coverage-line and test-result writers share (each adds its own rows and
 * bounds on them).
 */
import { TableBuffer } from "../../domain/table-buffer.ts";
import { tooLarge } from "../json-guard.ts";

export abstract class BoundedRowWriter {
  protected count = 0;
  constructor(
    protected table: TableBuffer,
    protected readonly label: string,
    private readonly maxRows: number,
  ) {}

  get rows(): number {
    return this.count;
  }

  /** Rows waiting in the current table (see `take`). */
  get pending(): number {
    return this.table.rowCount;
  }

  /**
   * Hands over the rows written so far and goes on in a new table (a streaming adapter's batch).
   */
  take(): TableBuffer {
    const full = this.table;
    this.table = new TableBuffer(full.schema);
    return full;
  }

  /** Fails before a row over the limit; `what` names the rows in the error. */
  protected checkRoom(what: string): void {
    if (this.count >= this.maxRows) throw tooLarge(this.label, what, this.count + 1, this.maxRows);
  }
}
