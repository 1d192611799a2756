/**
 * A checked Firefox Profiler thread (GeckoThread) and what both shapes build it with: raw
 * `{schema, data}` tables (raw-thread.ts) and processed column tables
 * (processed-thread.ts), with frames, funcs and stacks resolved against the thread's (or
 * the shared) strings. The reference tables become typed arrays and frame objects; samples
 * stay in their columns and are read in order, each checked as it is read; markers are
 * paired and kept as typed columns (their thread orders them by time).
 */
import { expectationFailed } from "../json-guard.ts";
import type { HostStrings } from "../wasm/host-strings.ts";
import {
  TAG_ARRAY,
  TAG_FALSE,
  TAG_NULL,
  TAG_NUMBER,
  TAG_OBJECT,
  TAG_STRING,
  TAG_TRUE,
} from "../wasm/json-batch.ts";
import type { CellColumn, CellReader } from "./cell-column.ts";
import { GrowableF64, GrowableI32 } from "../common/growable.ts";
import type { PayloadSummaries, TableParts, ThreadParts } from "./thread-parts.ts";

export const GECKO_FORMAT = "Firefox Profiler profile";

export interface GeckoFrame {
  name: string;
  file: string | null;
  line: number | null;
  column: number | null;
  module: string | null;
  js: boolean;
}

/** Markers of one thread, as columns: string ids, times in ms (end NaN for an instant). */
export class MarkerColumns {
  readonly name = new GrowableI32();
  readonly category = new GrowableI32();
  readonly start = new GrowableF64();
  readonly end = new GrowableF64();
  get count(): number {
    return this.name.length;
  }
  push(name: number, category: number, start: number, end: number): void {
    this.name.push(name);
    this.category.push(category);
    this.start.push(start);
    this.end.push(end);
  }
}

/** Counts the reader adds to across threads. */
export interface ProfileCounts {
  unpairedMarkers: number;
  allocations: number;
  cpuDeltas: number;
}

export interface GeckoThread {
  name: string;
  processName: string | null;
  pid: string | null;
  tid: string | null;
  weightType: "samples" | "tracing-ms" | "bytes";
  frames: GeckoFrame[];
  /** Prefix stack per stack (-1: none) and frame per stack. */
  stackPrefix: Int32Array;
  stackFrame: Int32Array;
  sampleCount: number;
  /**
   * Each sample in order: stack (-1: none), time in ms since the profile's start (NaN: none),
   * weight.
   */
  samples(): SampleReader;
  markers: MarkerColumns;
  strings: HostStrings;
}

export interface SampleReader {
  /** Reads the next sample into `stack`, `time`, `weight`. */
  next(): void;
  stack: number;
  time: number;
  weight: number;
}

export const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
export const positiveInt = (v: unknown): number | null =>
  num(v) && Number.isInteger(v) && v > 0 && v < 2 ** 31 ? v : null;

/** An element as JSON.parse would have given it (payload objects as their summaries). */
function elementValue(
  kind: number,
  value: number,
  strings: HostStrings,
  payloads: PayloadSummaries | null,
): unknown {
  switch (kind) {
    case TAG_NUMBER:
      return value;
    case TAG_STRING:
      return strings.get(value);
    case TAG_TRUE:
      return true;
    case TAG_FALSE:
      return false;
    case TAG_NULL:
      return null;
    case TAG_OBJECT:
      return payloads !== null ? summary(payloads, value, strings) : {};
    case TAG_ARRAY:
      return [];
    default:
      return undefined;
  }
}

function summary(p: PayloadSummaries, i: number, strings: HostStrings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (i < 0) return out;
  if (p.category.kind(i) === TAG_STRING) out.category = strings.get(p.category.value(i));
  const interval = p.interval.value(i);
  if (interval !== 0) out.interval = interval === 1 ? "start" : "end";
  if (p.startTime.kind(i) === TAG_NUMBER) out.startTime = p.startTime.value(i);
  if (p.endTime.kind(i) === TAG_NUMBER) out.endTime = p.endTime.value(i);
  return out;
}

/** A column read by index: raw cells (absent → null) or processed elements (absent → undefined). */
export interface Column {
  length: number;
  at(i: number): unknown;
  /** The string id of element i, when it is a string. */
  cells: CellColumn | null;
  absent: unknown;
}

export function columnOf(
  cells: CellColumn | null,
  length: number,
  absent: unknown,
  strings: HostStrings,
  payloads: PayloadSummaries | null,
): Column {
  return {
    length,
    cells,
    absent,
    at(i: number): unknown {
      if (cells === null || i < 0 || i >= length || !Number.isInteger(i)) return absent;
      const v = elementValue(cells.kind(i), cells.value(i), strings, payloads);
      return v === undefined ? absent : v;
    },
  };
}

/** A column read in order, with the same values as Column.at. */
export class OrderedColumn {
  private readonly reader: CellReader | null;
  constructor(
    cells: CellColumn | null,
    private readonly absent: unknown,
    private readonly strings: HostStrings,
  ) {
    this.reader = cells === null ? null : cells.reader();
  }
  next(): unknown {
    if (this.reader === null) return this.absent;
    this.reader.next();
    const v = elementValue(this.reader.kind, this.reader.value, this.strings, null);
    return v === undefined ? this.absent : v;
  }
}

/** Payload objects of a marker column, read in order, as summaries. */
export class PayloadReader {
  private readonly reader: CellReader | null;
  private readonly summaries: {
    category: CellReader;
    interval: CellReader;
    start: CellReader;
    end: CellReader;
  };
  private read = 0;
  constructor(
    cells: CellColumn | null,
    payloads: PayloadSummaries,
    private readonly strings: HostStrings,
  ) {
    this.reader = cells === null ? null : cells.reader();
    this.summaries = {
      category: payloads.category.reader(),
      interval: payloads.interval.reader(),
      start: payloads.startTime.reader(),
      end: payloads.endTime.reader(),
    };
  }
  next(): unknown {
    if (this.reader === null) return null;
    this.reader.next();
    const kind = this.reader.kind;
    if (kind !== TAG_OBJECT) {
      const v = elementValue(kind, this.reader.value, this.strings, null);
      return v === undefined ? null : v;
    }
    // Summaries are in document order; objects of other columns are passed over.
    const ordinal = this.reader.value;
    const s = this.summaries;
    while (this.read <= ordinal) {
      s.category.next();
      s.interval.next();
      s.start.next();
      s.end.next();
      this.read++;
    }
    const out: Record<string, unknown> = {};
    if (s.category.kind === TAG_STRING) out.category = this.strings.get(s.category.value);
    if (s.interval.value !== 0) out.interval = s.interval.value === 1 ? "start" : "end";
    if (s.start.kind === TAG_NUMBER) out.startTime = s.start.value;
    if (s.end.kind === TAG_NUMBER) out.endTime = s.end.value;
    return out;
  }
}

// ---- shared checks ---------------------------------------------------------------------

/** A thread's string table: element i's string id, checked. */
export function stringsOf(cells: CellColumn, _strings: HostStrings, what: string) {
  const expected =
    what === "stringTable" ? "an index into stringTable" : "an index into the string array";
  return {
    /** Element i's string id; `field` and `index` name the element in an error. */
    id(i: unknown, field: string, index: number): number {
      if (
        !num(i) ||
        !Number.isInteger(i) ||
        i < 0 ||
        i >= cells.length ||
        cells.kind(i) !== TAG_STRING
      )
        throw expectationFailed(GECKO_FORMAT, `${field}[${index}]`, expected, i);
      return cells.value(i);
    },
  };
}

export function threadNames(t: ThreadParts) {
  return {
    name: typeof t.name === "string" ? t.name : "thread",
    processName: typeof t.processName === "string" ? t.processName : null,
    pid: t.pid === undefined || t.pid === null ? null : String(t.pid),
    tid: t.tid === undefined || t.tid === null ? null : String(t.tid),
  };
}

function hasRows(table: TableParts): boolean {
  return (
    table.kind === TAG_OBJECT &&
    ((num(table.length) && table.length > 0) ||
      (table.dataKind === TAG_ARRAY && table.dataCount > 0))
  );
}

/** Allocation tables and per-sample CPU deltas are kept in the native artifact, not imported. */
export function noteNotImported(t: ThreadParts, counts: ProfileCounts): void {
  const tb = t.tables;
  if (hasRows(tb.jsAllocations) || hasRows(tb.nativeAllocations)) counts.allocations++;
  const samples = tb.samples;
  const cpu =
    samples.kind === TAG_OBJECT &&
    (samples.cpuDeltaKind === TAG_ARRAY ||
      (samples.schemaKind === TAG_OBJECT && samples.schemaHasCpuDelta));
  if (cpu && hasRows(samples)) counts.cpuDeltas++;
}

/**
 * Marker phases: 0 instant, 1 interval, 2 interval start, 3 interval end (processed v33+ and raw
 * v20+). A start waits for the next end of the same name, as the profiler pairs them.
 */
export class Pairing {
  constructor(
    private readonly out: MarkerColumns,
    private readonly counts: ProfileCounts,
    private readonly open: Map<string, [number, number]>,
  ) {}

  push(
    nameId: number,
    name: string,
    category: number,
    phase: unknown,
    start: unknown,
    end: unknown,
    offsetMs: number,
  ): void {
    if (phase === 1 && num(start) && num(end))
      this.out.push(nameId, category, start + offsetMs, Math.max(start, end) + offsetMs);
    else if ((phase === 0 || phase === null) && num(start))
      this.out.push(nameId, category, start + offsetMs, Number.NaN);
    else if (phase === 2 && num(start)) {
      if (this.open.has(name)) this.counts.unpairedMarkers++;
      this.open.set(name, [start + offsetMs, nameId]);
    } else if (phase === 3 && num(end)) {
      const began = this.open.get(name);
      if (began === undefined) this.counts.unpairedMarkers++;
      else {
        this.open.delete(name);
        this.out.push(nameId, category, began[0], Math.max(began[0], end + offsetMs));
      }
    } else this.counts.unpairedMarkers++;
  }
}

/** Frame per stack, each checked below `limit`. */
export function frameIndexes(c: Column | null, where: string, limit: number): Int32Array {
  const out = new Int32Array(c?.length ?? 0);
  for (let i = 0; i < out.length; i++) {
    const v = c!.at(i);
    if (!num(v) || !Number.isInteger(v) || v < 0 || v >= limit)
      throw expectationFailed(GECKO_FORMAT, `${where}[${i}]`, `a frame index below ${limit}`, v);
    out[i] = v;
  }
  return out;
}

/**
 * Prefix per stack (-1: none), each an earlier stack, so walks end. A stack past the end
 * of a shorter prefix column is MISSING_PREFIX: a walk that reaches it fails.
 */
export function prefixIndexes(c: Column | null, where: string, stacks: number): Int32Array {
  const length = c?.length ?? 0;
  const out = new Int32Array(Math.max(length, stacks));
  for (let i = 0; i < out.length; i++)
    out[i] = i < length ? stackIndex(c!.at(i), where, i, i) : MISSING_PREFIX;
  return out;
}

export const MISSING_PREFIX = -2;

/** A stack index below `limit`, or -1 for none (`where[index]` names it in an error). */
function stackIndex(v: unknown, where: string, index: number, limit: number): number {
  if (v === null || v === undefined) return -1;
  if (!num(v) || !Number.isInteger(v) || v < 0 || v >= limit)
    throw expectationFailed(
      GECKO_FORMAT,
      `${where}[${index}]`,
      `null or a stack index below ${limit}`,
      v,
    );
  return v;
}

function checkedWeight(v: unknown, where: string, index: number): number {
  if (v === null || v === undefined) return 1;
  if (!num(v) || v < 0)
    throw expectationFailed(GECKO_FORMAT, `${where}[${index}]`, "a non-negative number", v);
  return v;
}

export class Samples implements SampleReader {
  stack = -1;
  time = Number.NaN;
  weight = 1;
  private i = 0;
  private at = 0;
  constructor(
    private readonly stacks: OrderedColumn,
    private readonly times: OrderedColumn,
    private readonly weights: OrderedColumn | null,
    private readonly deltas: OrderedColumn | null,
    private readonly offsetMs: number,
    where: string,
    private readonly stackCount: number,
  ) {
    this.stackWhere = `${where}.stack`;
    this.weightWhere = `${where}.weight`;
  }
  private readonly stackWhere: string;
  private readonly weightWhere: string;

  next(): void {
    const i = this.i++;
    // Names are built only for an error: a string per sample would be garbage per sample.
    this.stack = stackIndex(this.stacks.next(), this.stackWhere, i, this.stackCount);
    let t: unknown;
    if (this.deltas !== null) {
      const d = this.deltas.next();
      t = this.at += num(d) ? d : Number.NaN;
    } else t = this.times.next();
    this.time = num(t) ? t + this.offsetMs : Number.NaN;
    this.weight =
      this.weights === null ? 1 : checkedWeight(this.weights.next(), this.weightWhere, i);
  }
}
