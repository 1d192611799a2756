/**
 * Writes one evidence table as Parquet parts of at most ROWS_PER_PART rows, from column
 * batches (streaming adapters) or a whole TableBuffer. A part is encoded as soon as it is
 * full, so the rows held in memory never exceed one part.
 */
import { join } from "node:path";
import { Table, type RecordBatch } from "apache-arrow";
import type { ColumnBatch } from "../src/domain/column-batch.ts";
import type { EvidenceTableName } from "../src/domain/evidence-schema.ts";
import { EVIDENCE_SCHEMAS } from "../src/domain/evidence-schema.ts";
import type { TableBuffer } from "../src/domain/table-buffer.ts";
import { columnBatchToArrow } from "../src/storage/column-batch-arrow.ts";
import { evidenceArrowSchema, tableBufferToArrow, writeParquet, type Provenance } from "../src/storage/parquet.ts";

/**
 * Rows per Parquet part. parquet-wasm encodes a part inside its linear memory, which never
 * shrinks: 256Ki rows keep that memory (and so the worker's RSS) bounded whatever the
 * artifact's size, at the cost of more, smaller files for huge traces.
 */
export const ROWS_PER_PART = 262_144;

export interface WrittenPart {
  table: EvidenceTableName;
  part: number;
  file: string;
  rows: number;
  schema_id: string;
}

export type PartEncoder = (table: Table) => Promise<Uint8Array>;

/** Encodes on the calling thread. */
export const encodeInline: PartEncoder = async (table) => writeParquet(table);

export class TableParts {
  readonly parts: WrittenPart[] = [];
  private pending: RecordBatch[] = [];
  private pendingRows = 0;
  private readonly writes: Promise<void>[] = [];

  constructor(
    readonly table: EvidenceTableName,
    private readonly outputDir: string,
    private readonly provenance: Provenance,
    private readonly encode: PartEncoder = encodeInline,
  ) {}

  async add(batch: ColumnBatch): Promise<void> {
    let start = 0;
    const whole = columnBatchToArrow(batch, this.provenance);
    // A batch that straddles a part boundary is split so parts stay at ROWS_PER_PART.
    while (start < batch.length) {
      const take = Math.min(batch.length - start, ROWS_PER_PART - this.pendingRows);
      this.pending.push(start === 0 && take === batch.length ? whole : whole.slice(start, start + take));
      this.pendingRows += take;
      start += take;
      if (this.pendingRows === ROWS_PER_PART) await this.flush();
    }
  }

  async addBuffer(buffer: TableBuffer): Promise<void> {
    // Converted one part's range at a time, so a huge buffer never becomes one huge Arrow table.
    for (let start = 0; start < buffer.rowCount; ) {
      const end = Math.min(buffer.rowCount, start + ROWS_PER_PART - this.pendingRows);
      for (const batch of tableBufferToArrow(buffer, this.provenance, { start, end }).batches) this.pending.push(batch);
      this.pendingRows += end - start;
      start = end;
      if (this.pendingRows === ROWS_PER_PART) await this.flush();
    }
  }

  /** Writes what is pending as the next part; every table gets at least one (possibly empty) part. */
  private async flush(): Promise<void> {
    const batches = this.pending;
    const rows = this.pendingRows;
    this.pending = [];
    this.pendingRows = 0;
    const part = this.parts.length;
    const file = `${this.table}.${part}.parquet`;
    this.parts.push({ table: this.table, part, file, rows, schema_id: EVIDENCE_SCHEMAS[this.table].schemaId });
    const schema = evidenceArrowSchema(EVIDENCE_SCHEMAS[this.table]);
    const write = this.encode(new Table(schema, batches)).then((bytes) => Bun.write(join(this.outputDir, file), bytes).then(() => undefined));
    this.writes.push(write);
    // At most two parts in flight: the parser keeps going while one part encodes.
    if (this.writes.length >= 2) await this.writes[this.writes.length - 2];
  }

  async finish(): Promise<WrittenPart[]> {
    if (this.pendingRows > 0 || this.parts.length === 0) await this.flush();
    await Promise.all(this.writes);
    return this.parts;
  }
}
