/**
 * One thread of a Firefox Profiler file as its records stream in, before it can be read:
 * its scalar fields, and per table what the reader checks (the table's JSON kind, its
 * `length`, `data` and schema) and its elements as CellColumns. Samples and markers may
 * come before the string, frame and stack tables they point into, so nothing is resolved
 * here. Payload objects (marker `data`) are kept as summaries of the four fields read
 * (`category`, `interval`, `startTime`, `endTime`), in columns of their own.
 */
import type { SpillSpace } from "../adapter.ts";
import type { HostStrings } from "../wasm/host-strings.ts";
import {
  TAG_ABSENT,
  TAG_ARRAY,
  TAG_FALSE,
  TAG_NULL,
  TAG_NUMBER,
  TAG_OBJECT,
  TAG_STRING,
  TAG_TRUE,
} from "../wasm/json-batch.ts";
import { CellColumn } from "./cell-column.ts";
import { TABLE_NAMES, TABLES, type TableName } from "./gecko-program.ts";

/** A scalar field as the scanner gave it (a JSON.parse-equivalent value, or undefined). */
export type FieldValue = unknown;

/** Marker payload summaries: one element per payload object, in order. */
export class PayloadSummaries {
  readonly category: CellColumn;
  readonly interval: CellColumn;
  readonly startTime: CellColumn;
  readonly endTime: CellColumn;
  count = 0;

  constructor(spill: SpillSpace | null, block: number) {
    this.category = new CellColumn(spill, block);
    this.interval = new CellColumn(spill, block);
    this.startTime = new CellColumn(spill, block);
    this.endTime = new CellColumn(spill, block);
  }

  /** Summarises a parsed payload object; returns its ordinal. */
  add(payload: Record<string, unknown>, strings: HostStrings): number {
    const category = payload.category;
    if (typeof category === "string") this.category.push(TAG_STRING, strings.intern(category));
    else this.category.push(TAG_ABSENT, 0);
    const interval = payload.interval;
    this.interval.push(TAG_NUMBER, interval === "start" ? 1 : interval === "end" ? 2 : 0);
    pushNumber(this.startTime, payload.startTime);
    pushNumber(this.endTime, payload.endTime);
    return this.count++;
  }

  dispose(): void {
    for (const c of [this.category, this.interval, this.startTime, this.endTime]) c.dispose();
  }
}

function pushNumber(column: CellColumn, v: unknown): void {
  if (typeof v === "number") column.push(TAG_NUMBER, v);
  else column.push(TAG_ABSENT, 0);
}

export class TableParts {
  /** The table's own JSON kind (absent: the thread has no such key). */
  kind = TAG_ABSENT;
  length: FieldValue = undefined;
  dataKind = TAG_ABSENT;
  dataCount = 0;
  weightType: FieldValue = undefined;
  cpuDeltaKind = TAG_ABSENT;
  /** Processed columns: the key's kind and its elements. */
  readonly columnKinds: number[];
  readonly columns: CellColumn[];
  /** Raw schema: its kind and each field's value. */
  schemaKind = TAG_ABSENT;
  schema: FieldValue[] = [];
  schemaHasCpuDelta = false;
  /** Raw rows: count, the first that is not an array, and cells by position. */
  rows = 0;
  badRow = -1;
  badRowKind = TAG_ABSENT;
  readonly cells = new Map<number, CellColumn>();
  /** Positions whose cells are kept, once the schema came first. */
  private wanted: Set<number> | null = null;
  /** Marker payloads: the processed `data` column, and summaries of payload objects. */
  readonly payloadColumn: CellColumn;
  readonly payloads: PayloadSummaries;

  constructor(
    readonly name: TableName,
    private readonly spill: SpillSpace | null,
    private readonly block: number,
  ) {
    const spec = TABLES[name];
    this.columnKinds = spec.columns.map(() => TAG_ABSENT);
    this.columns = spec.columns.map(() => new CellColumn(spill, block));
    this.payloadColumn = new CellColumn(spill, block);
    this.payloads = new PayloadSummaries(spill, block);
  }

  /** The schema arrived: only the cells of its fields are kept from now on. */
  setSchema(kind: number, values: FieldValue[], hasCpuDelta: boolean): void {
    this.schemaKind = kind;
    this.schema = values;
    this.schemaHasCpuDelta = hasCpuDelta;
    if (this.rows === 0 && this.cells.size === 0) {
      this.wanted = new Set();
      for (const v of values)
        if (typeof v === "number" && Number.isInteger(v) && v >= 0) this.wanted.add(v);
    }
  }

  /** A cell of the row being read (row number `rows`). */
  cell(position: number, kind: number, value: number): void {
    if (this.wanted !== null && !this.wanted.has(position)) return;
    let column = this.cells.get(position);
    if (column === undefined) {
      column = new CellColumn(this.spill, this.block);
      this.cells.set(position, column);
    }
    column.padTo(this.rows);
    column.push(kind, value);
  }

  /** The row ended; `kind` is its own JSON kind. */
  endRow(kind: number): void {
    if (kind !== TAG_ARRAY && this.badRow < 0) {
      this.badRow = this.rows;
      this.badRowKind = kind;
    }
    this.rows++;
  }

  /** A raw marker row or processed payload, parsed from its JSON text (or a scalar). */
  markerElement(kind: number, value: number, parsed: unknown, strings: HostStrings): void {
    if (Array.isArray(parsed)) {
      this.payloadColumn.push(TAG_ARRAY, 0);
      for (let p = 0; p < parsed.length; p++) {
        const [k, v] = cellOf(parsed[p], strings, this.payloads);
        this.cell(p, k, v);
      }
      this.endRow(TAG_ARRAY);
      return;
    }
    if (kind === TAG_OBJECT) {
      this.payloadColumn.push(
        TAG_OBJECT,
        this.payloads.add(parsed as Record<string, unknown>, strings),
      );
    } else this.payloadColumn.push(kind, value);
    this.endRow(kind);
  }

  /** Sends the buffered elements to scratch space (the table's thread will wait). */
  park(): void {
    for (const c of this.columns) c.park();
    for (const c of this.cells.values()) c.park();
    this.payloadColumn.park();
    for (const c of [
      this.payloads.category,
      this.payloads.interval,
      this.payloads.startTime,
      this.payloads.endTime,
    ])
      c.park();
  }

  dispose(): void {
    for (const c of this.columns) c.dispose();
    for (const c of this.cells.values()) c.dispose();
    this.payloadColumn.dispose();
    this.payloads.dispose();
  }
}

/** A parsed JSON value as a cell (objects summarised). */
function cellOf(v: unknown, strings: HostStrings, payloads: PayloadSummaries): [number, number] {
  if (v === null) return [TAG_NULL, 0];
  switch (typeof v) {
    case "number":
      return [TAG_NUMBER, v];
    case "string":
      return [TAG_STRING, strings.intern(v)];
    case "boolean":
      return [v ? TAG_TRUE : TAG_FALSE, 0];
    default:
      return Array.isArray(v)
        ? [TAG_ARRAY, 0]
        : [TAG_OBJECT, payloads.add(v as Record<string, unknown>, strings)];
  }
}

export interface LibEntry {
  isObject: boolean;
  name: FieldValue;
}

export class ThreadParts {
  selfKind = TAG_ABSENT;
  /** The thread's JSON text, when the file holds it as a string (Gecko before version 4). */
  text: string | null = null;
  name: FieldValue = undefined;
  processName: FieldValue = undefined;
  pid: FieldValue = undefined;
  tid: FieldValue = undefined;
  stringTableKind = TAG_ABSENT;
  readonly stringTable = new CellColumn();
  stringArrayKind = TAG_ABSENT;
  readonly stringArray = new CellColumn();
  libsKind = TAG_ABSENT;
  libs: LibEntry[] = [];
  readonly tables: Record<TableName, TableParts>;

  constructor(
    /** The strings the thread's string ids refer to (its scanner's). */
    readonly strings: HostStrings,
    spill: SpillSpace | null,
    block: number,
  ) {
    const bulk = (t: TableName) => (t === "samples" || t === "markers" ? spill : null);
    this.tables = Object.fromEntries(
      TABLE_NAMES.map((t) => [t, new TableParts(t, bulk(t), block)]),
    ) as Record<TableName, TableParts>;
  }

  /** The thread will wait for what it needs: its samples and markers go to scratch space. */
  park(): void {
    this.tables.samples.park();
    this.tables.markers.park();
  }

  dispose(): void {
    for (const t of Object.values(this.tables)) t.dispose();
  }
}
