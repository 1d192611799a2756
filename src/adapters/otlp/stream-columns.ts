/**
 * Growable column builders for one streamed table: rows are appended cell by cell
 * (strings as UTF-8 bytes, int64 as two 32-bit words) and taken as a ColumnBatch, after
 * which the builders are reused for the next batch. No JS value is kept per row. A batch's
 * arrays are copied into batch buffers (batch-buffers.ts), which come back once its part is
 * encoded: copied into fresh memory (slice), the copies were ~1 s of a 100 MB OTLP import's
 * 2.9 s parser thread, most of it first-touch page faults.
 */
import type { ColumnBatch, ColumnVector } from "../../domain/column-batch.ts";
import { EVIDENCE_SCHEMAS, type EvidenceTableName } from "../../domain/evidence-schema.ts";
import { copyBigInt64, copyInt32, copyUint8 } from "../common/batch-buffers.ts";
import { ByteBuf } from "../common/json-bytes.ts";

class Validity {
  private valid: Uint8Array | null = null;
  private nulls = 0;

  setNull(row: number): void {
    if (this.valid === null || row >> 3 >= this.valid.length) this.grow(row);
    this.valid![row >> 3]! &= ~(1 << (row & 7));
    this.nulls++;
  }

  private grow(row: number): void {
    const next = new Uint8Array(Math.max(128, (row >> 2) + 1)).fill(0xff);
    if (this.valid) next.set(this.valid);
    this.valid = next;
  }

  take(rows: number): { valid: Uint8Array | null; nullCount: number } {
    const bytes = (rows + 7) >> 3;
    let valid: Uint8Array | null = null;
    if (this.nulls > 0) {
      valid = new Uint8Array(bytes).fill(0xff);
      valid.set(this.valid!.subarray(0, Math.min(bytes, this.valid!.length)));
    }
    const out = { valid, nullCount: this.nulls };
    if (this.valid) this.valid.fill(0xff);
    this.nulls = 0;
    return out;
  }
}

export class Utf8Column extends ByteBuf {
  private offsets = new Int32Array(1024);
  private readonly validity = new Validity();
  rows = 0;

  /** Where the current (uncommitted) row's bytes start. */
  get rowStart(): number {
    return this.offsets[this.rows]!;
  }

  /** Ends the current row: its bytes are those written since the previous one ended. */
  commit(): void {
    if (this.rows + 2 > this.offsets.length) {
      const next = new Int32Array(this.offsets.length * 2);
      next.set(this.offsets);
      this.offsets = next;
    }
    if (this.used > 0x7fffffff)
      throw new RangeError("UTF-8 data of one batch exceeds Arrow's int32 offsets");
    this.offsets[++this.rows] = this.used;
  }

  nullRow(): void {
    this.validity.setNull(this.rows);
    this.commit();
  }

  /** A whole row from bytes written elsewhere. */
  row(bytes: Uint8Array, start: number, end: number): void {
    this.copy(bytes, start, end);
    this.commit();
  }

  take(): ColumnVector {
    const vector: ColumnVector = {
      type: "utf8",
      offsets: copyInt32(this.offsets, this.rows + 1),
      data: copyUint8(this.data, this.used),
      ...this.validity.take(this.rows),
    };
    this.rows = 0;
    this.used = 0;
    return vector;
  }
}

export class Int64Column {
  private words = new Int32Array(2048);
  private readonly validity = new Validity();
  rows = 0;

  private room(): void {
    if (2 * this.rows + 2 > this.words.length) {
      const next = new Int32Array(this.words.length * 2);
      next.set(this.words);
      this.words = next;
    }
  }

  /** Two's complement from its low (unsigned) and high (signed) words. */
  words64(low: number, high: number): void {
    this.room();
    this.words[2 * this.rows] = low;
    this.words[2 * this.rows + 1] = high;
    this.rows++;
  }

  /** An integral number with |n| < 2^53. */
  number(n: number): void {
    const high = Math.floor(n / 0x1_0000_0000);
    this.words64(n - high * 0x1_0000_0000, high);
  }

  nullRow(): void {
    this.validity.setNull(this.rows);
    this.words64(0, 0);
  }

  take(): ColumnVector {
    const vector: ColumnVector = {
      type: "int64",
      values: copyBigInt64(new BigInt64Array(this.words.buffer, 0, this.rows), this.rows),
      ...this.validity.take(this.rows),
    };
    this.rows = 0;
    return vector;
  }
}

export class Int32Column {
  private values = new Int32Array(1024);
  rows = 0;

  push(n: number): void {
    if (this.rows >= this.values.length) {
      const next = new Int32Array(this.values.length * 2);
      next.set(this.values);
      this.values = next;
    }
    this.values[this.rows++] = n;
  }

  take(): ColumnVector {
    const vector: ColumnVector = {
      type: "int32",
      values: copyInt32(this.values, this.rows),
      valid: null,
      nullCount: 0,
    };
    this.rows = 0;
    return vector;
  }
}

type Column = Utf8Column | Int64Column | Int32Column;

/** A table's columns, checked against its evidence schema; `take` hands them over as one batch. */
export class StreamTable<C extends Record<string, Column>> {
  constructor(
    readonly table: EvidenceTableName,
    readonly columns: C,
  ) {
    const schema = EVIDENCE_SCHEMAS[table];
    const names = Object.keys(columns);
    if (
      names.length !== schema.columns.length ||
      schema.columns.some((col) => !(col.name in columns))
    ) {
      throw new TypeError(`Stream columns of ${table} do not match its schema`);
    }
    for (const col of schema.columns) {
      const c = columns[col.name]!;
      const type = c instanceof Utf8Column ? "utf8" : c instanceof Int64Column ? "int64" : "int32";
      if (type !== col.type)
        throw new TypeError(
          `Stream column ${table}.${col.name} is ${type}, the schema says ${col.type}`,
        );
    }
  }

  get rows(): number {
    return Object.values(this.columns)[0]!.rows;
  }

  take(): ColumnBatch {
    const length = this.rows;
    const out: ColumnBatch["columns"] = {};
    for (const col of EVIDENCE_SCHEMAS[this.table].columns) {
      const c = this.columns[col.name]!;
      if (c.rows !== length)
        throw new Error(
          `Stream column ${this.table}.${col.name} has ${c.rows} rows, expected ${length}`,
        );
      out[col.name] = c.take();
    }
    return { table: this.table, length, columns: out };
  }
}
