/**
 * One thread's parts → a checked GeckoThread, by the rules of both shapes (see
 * gecko-profile.ts for the shapes): raw `{schema, data}` tables or processed column
 * tables; frames, funcs and stacks resolved against the thread's (or the shared) strings.
 * The reference tables become typed arrays and frame objects; samples stay in their
 * columns and are read in order, each checked as it is read; markers are paired and
 * kept as typed columns (their thread orders them by time).
 */
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import type { HostStrings } from "../wasm/host-strings.ts";
import {
  sampleOfKind,
  TAG_ABSENT,
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
import type { SharedParts } from "./gecko-records.ts";
import { TABLES } from "./gecko-program.ts";
import type { LibEntry, PayloadSummaries, TableParts, ThreadParts } from "./thread-parts.ts";

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
  /** Each sample in order: stack (-1: none), time in ms since the profile's start (NaN: none), weight. */
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

const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const positiveInt = (v: unknown): number | null =>
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
interface Column {
  length: number;
  at(i: number): unknown;
  /** The string id of element i, when it is a string. */
  cells: CellColumn | null;
  absent: unknown;
}

function columnOf(
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
class OrderedColumn {
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

// ---- raw Gecko threads ---------------------------------------------------------------

function rawColumn(table: TableParts, field: string, where: string, strings: HostStrings) {
  if (table.kind !== TAG_OBJECT || table.schemaKind !== TAG_OBJECT || table.dataKind !== TAG_ARRAY)
    throw expectationFailed(
      GECKO_FORMAT,
      where,
      "a {schema, data} table",
      sampleOfKind(table.kind),
    );
  const index = table.schema[TABLES[table.name].fields.indexOf(field)];
  if (index === undefined) return null;
  if (!num(index))
    throw expectationFailed(GECKO_FORMAT, `${where}.schema.${field}`, "a column index", index);
  if (table.badRow >= 0)
    throw expectationFailed(
      GECKO_FORMAT,
      `${where}.data[${table.badRow}]`,
      "an array",
      sampleOfKind(table.badRowKind),
    );
  const cells = Number.isInteger(index) && index >= 0 ? (table.cells.get(index) ?? null) : null;
  return { cells, rows: table.rows, payloads: table.payloads, strings };
}

type RawColumn = NonNullable<ReturnType<typeof rawColumn>>;

const rawAt = (c: RawColumn | null): Column | null =>
  c === null ? null : columnOf(c.cells, c.rows, null, c.strings, c.payloads);

const JS_LOCATION = /^(.*)\s+\((.*?)(?::(\d+))?(?::(\d+))?\)$/;

export function rawThread(
  t: ThreadParts,
  where: string,
  offsetMs: number,
  counts: ProfileCounts,
): GeckoThread {
  if (t.selfKind !== TAG_OBJECT)
    throw expectationFailed(GECKO_FORMAT, where, "an object", sampleOfKind(t.selfKind));
  noteNotImported(t, counts);
  if (t.stringTableKind !== TAG_ARRAY)
    throw expectationFailed(
      GECKO_FORMAT,
      `${where}.stringTable`,
      "an array",
      sampleOfKind(t.stringTableKind),
    );
  const strings = stringsOf(t.stringTable, t.strings, "stringTable");
  const s = t.strings;
  const tb = t.tables;
  const location = rawAt(rawColumn(tb.frameTable, "location", `${where}.frameTable`, s));
  const lines = rawAt(rawColumn(tb.frameTable, "line", `${where}.frameTable`, s));
  const columns = rawAt(rawColumn(tb.frameTable, "column", `${where}.frameTable`, s));
  const frames: GeckoFrame[] = [];
  for (let f = 0; f < (location?.length ?? 0); f++) {
    const text = s.get(strings.id(location!.at(f), `${where}.frameTable.location`, f));
    const js = JS_LOCATION.exec(text);
    const line = positiveInt(lines?.at(f));
    const column = positiveInt(columns?.at(f));
    if (js && js[2] !== "") {
      frames.push({
        name: js[1]!.trim() || "(anonymous)",
        file: js[2]!,
        line: js[3] ? Number(js[3]) : line,
        column: js[4] ? Number(js[4]) + 1 : column,
        module: null,
        js: true,
      });
    } else frames.push({ name: text, file: null, line, column, module: null, js: false });
  }
  const prefix = rawAt(rawColumn(tb.stackTable, "prefix", `${where}.stackTable`, s));
  const frame = rawAt(rawColumn(tb.stackTable, "frame", `${where}.stackTable`, s));
  const stack = rawColumn(tb.samples, "stack", `${where}.samples`, s);
  const time = rawColumn(tb.samples, "time", `${where}.samples`, s);
  const weight = rawColumn(tb.samples, "weight", `${where}.samples`, s);
  const markers = new MarkerColumns();
  const m = tb.markers;
  const names = rawAt(rawColumn(m, "name", `${where}.markers`, s));
  const start =
    rawAt(rawColumn(m, "startTime", `${where}.markers`, s)) ??
    rawAt(rawColumn(m, "time", `${where}.markers`, s));
  const end = rawAt(rawColumn(m, "endTime", `${where}.markers`, s));
  const phase = rawAt(rawColumn(m, "phase", `${where}.markers`, s));
  const data = rawAt(rawColumn(m, "data", `${where}.markers`, s));
  const category = rawAt(rawColumn(m, "category", `${where}.markers`, s));
  const open = new Map<string, number>();
  const phased = new Map<string, [number, number]>();
  const pairing = new Pairing(markers, counts, phased);
  const nameReader = new OrderedColumn(names?.cells ?? null, null, s);
  const startReader = new OrderedColumn(start?.cells ?? null, null, s);
  const endReader = new OrderedColumn(end?.cells ?? null, null, s);
  const phaseReader = new OrderedColumn(phase?.cells ?? null, null, s);
  const categoryReader = new OrderedColumn(category?.cells ?? null, null, s);
  const dataReader = new PayloadReader(data?.cells ?? null, m.payloads, s);
  for (let i = 0; i < (names?.length ?? 0); i++) {
    const nameId = strings.id(nameReader.next(), `${where}.markers.name`, i);
    const name = s.get(nameId);
    const d = dataReader.next();
    const sv = start === null ? undefined : startReader.next();
    const e = endReader.next();
    const catCell = categoryReader.next();
    const cat =
      isPlainObject(d) && typeof d.category === "string"
        ? d.category
        : typeof catCell === "string"
          ? catCell
          : null;
    // Old tracing markers: a start and an end marker of one name (data.interval).
    if (
      phase === null &&
      isPlainObject(d) &&
      (d.interval === "start" || d.interval === "end") &&
      num(sv)
    ) {
      const key = `${name}\u0000${cat}`;
      if (d.interval === "start") {
        if (open.has(key)) counts.unpairedMarkers++;
        open.set(key, sv);
      } else {
        const began = open.get(key);
        if (began === undefined) counts.unpairedMarkers++;
        else {
          open.delete(key);
          markers.push(nameId, cat === null ? -1 : s.intern(cat), began + offsetMs, sv + offsetMs);
        }
      }
      phaseReader.next();
      continue;
    }
    const ph = phaseReader.next();
    pairing.push(nameId, name, cat === null ? -1 : s.intern(cat), ph, sv, e, offsetMs);
  }
  counts.unpairedMarkers += open.size + phased.size;
  const stackFrame = frameIndexes(frame, `${where}.stackTable.frame`, frames.length);
  const stackPrefix = prefixIndexes(prefix, `${where}.stackTable.prefix`, stackFrame.length);
  return {
    ...threadNames(t),
    weightType: "samples",
    frames,
    stackPrefix,
    stackFrame,
    sampleCount: stack === null ? 0 : stack.rows,
    samples: () =>
      new Samples(
        new OrderedColumn(stack?.cells ?? null, null, s),
        new OrderedColumn(time?.cells ?? null, null, s),
        weight === null ? null : new OrderedColumn(weight.cells, null, s),
        null,
        offsetMs,
        `${where}.samples`,
        stackFrame.length,
      ),
    markers,
    strings: s,
  };
}

/** Payload objects of a marker column, read in order, as summaries. */
class PayloadReader {
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

// ---- processed profiles ----------------------------------------------------------------

export interface ProcessedContext {
  sharedStrings: CellColumn | null;
  /** shared.sources.filename, when shared.sources is an object. */
  sourceFiles: Column | null;
  libs: LibEntry[];
}

/** The processed context of a root: its shared strings and sources, and its libs. */
export function processedContext(
  shared: SharedParts | null,
  libsKind: number,
  libs: LibEntry[],
  strings: HostStrings,
): ProcessedContext {
  const isShared = shared !== null && shared.kind === TAG_OBJECT;
  let sourceFiles: Column | null = null;
  if (isShared && shared.sourcesKind === TAG_OBJECT) {
    const k = shared.filenameKind;
    if (k !== TAG_ABSENT && k !== TAG_NULL && k !== TAG_ARRAY)
      throw expectationFailed(GECKO_FORMAT, "shared.sources.filename", "an array", sampleOfKind(k));
    if (k === TAG_ARRAY)
      sourceFiles = columnOf(shared.filenames, shared.filenames.length, undefined, strings, null);
  }
  return {
    sharedStrings: isShared && shared.stringsKind === TAG_ARRAY ? shared.strings : null,
    sourceFiles,
    libs: libsKind === TAG_ARRAY ? libs : [],
  };
}

function column(
  table: TableParts,
  field: string,
  where: string,
  strings: HostStrings,
  required = true,
): Column | null {
  if (table.kind !== TAG_OBJECT)
    throw expectationFailed(GECKO_FORMAT, where, "an object of columns", sampleOfKind(table.kind));
  const c = TABLES[table.name].columns.indexOf(field);
  // The markers' `data` key is read as payload elements (raw rows share it).
  const kind = c < 0 ? table.dataKind : table.columnKinds[c]!;
  if (kind === TAG_ABSENT || kind === TAG_NULL) {
    if (required)
      throw expectationFailed(GECKO_FORMAT, `${where}.${field}`, "an array", sampleOfKind(kind));
    return null;
  }
  if (kind !== TAG_ARRAY)
    throw expectationFailed(GECKO_FORMAT, `${where}.${field}`, "an array", sampleOfKind(kind));
  const cells = c < 0 ? table.payloadColumn : table.columns[c]!;
  return columnOf(cells, cells.length, undefined, strings, c < 0 ? table.payloads : null);
}

export function processedThread(
  t: ThreadParts,
  where: string,
  context: ProcessedContext,
  counts: ProfileCounts,
): GeckoThread {
  if (t.selfKind !== TAG_OBJECT)
    throw expectationFailed(GECKO_FORMAT, where, "an object", sampleOfKind(t.selfKind));
  noteNotImported(t, counts);
  const stringCells =
    t.stringArrayKind === TAG_ARRAY
      ? t.stringArray
      : t.stringTableKind === TAG_ARRAY
        ? t.stringTable
        : context.sharedStrings;
  if (stringCells === null)
    throw expectationFailed(
      GECKO_FORMAT,
      `${where}.stringArray (or shared.stringArray)`,
      "an array",
      sampleOfKind(t.stringArrayKind),
    );
  const strings = stringsOf(stringCells, t.strings, "string array");
  const s = t.strings;
  const str = (v: unknown, field: string, index: number) => s.get(strings.id(v, field, index));
  const libs = t.libsKind === TAG_ARRAY ? t.libs : context.libs;
  const tb = t.tables;
  const fw = `${where}.funcTable`;
  const funcName = column(tb.funcTable, "name", fw, s)!;
  const funcFile = column(tb.funcTable, "fileName", fw, s, false);
  const funcSource = column(tb.funcTable, "source", fw, s, false);
  const sourceFiles = context.sourceFiles;
  const funcLine = column(tb.funcTable, "lineNumber", fw, s, false);
  const funcColumn = column(tb.funcTable, "columnNumber", fw, s, false);
  const funcIsJS = column(tb.funcTable, "isJS", fw, s, false);
  const funcResource = column(tb.funcTable, "resource", fw, s, false);
  const rw = `${where}.resourceTable`;
  const resources = tb.resourceTable.kind === TAG_OBJECT;
  const resourceName = resources ? column(tb.resourceTable, "name", rw, s, false) : null;
  const resourceLib = resources ? column(tb.resourceTable, "lib", rw, s, false) : null;
  const funcs: GeckoFrame[] = [];
  for (let f = 0; f < funcName.length; f++) {
    const source = funcSource?.at(f);
    const fileIndex =
      funcFile?.at(f) ??
      (source !== undefined && source !== null && sourceFiles
        ? sourceFiles.at(source as number)
        : null);
    const r = funcResource?.at(f);
    let module: string | null = null;
    if (num(r) && r >= 0) {
      const lib = resourceLib?.at(r);
      const entry = num(lib) && Number.isInteger(lib) ? libs[lib] : undefined;
      const libName = entry?.isObject ? entry.name : undefined;
      const rn = resourceName?.at(r);
      module = typeof libName === "string" ? libName : num(rn) ? str(rn, `${rw}.name`, r) : null;
    }
    funcs.push({
      name: str(funcName.at(f), `${fw}.name`, f),
      file:
        fileIndex === null || fileIndex === undefined ? null : str(fileIndex, `${fw}.fileName`, f),
      line: positiveInt(funcLine?.at(f)),
      column: positiveInt(funcColumn?.at(f)),
      module,
      js: funcIsJS?.at(f) === true,
    });
  }
  const frameFunc = column(tb.frameTable, "func", `${where}.frameTable`, s)!;
  const frames: GeckoFrame[] = [];
  for (let i = 0; i < frameFunc.length; i++) {
    const f = frameFunc.at(i);
    if (!num(f) || f < 0 || f >= funcs.length || !Number.isInteger(f))
      throw expectationFailed(
        GECKO_FORMAT,
        `${where}.frameTable.func[${i}]`,
        `a func index below ${funcs.length}`,
        f,
      );
    frames.push(funcs[f]!);
  }
  const frame = column(tb.stackTable, "frame", `${where}.stackTable`, s)!;
  const prefix = column(tb.stackTable, "prefix", `${where}.stackTable`, s)!;
  const sw = `${where}.samples`;
  const stack = column(tb.samples, "stack", sw, s)!;
  const time = column(tb.samples, "time", sw, s, false);
  const deltas = time === null ? column(tb.samples, "timeDeltas", sw, s) : null;
  const weight = column(tb.samples, "weight", sw, s, false);
  const weightType = tb.samples.weightType ?? "samples";
  if (weightType !== "samples" && weightType !== "tracing-ms" && weightType !== "bytes")
    throw expectationFailed(
      GECKO_FORMAT,
      `${sw}.weightType`,
      '"samples", "tracing-ms" or "bytes"',
      weightType,
    );
  const markers = new MarkerColumns();
  if (tb.markers.kind === TAG_OBJECT) {
    const mw = `${where}.markers`;
    const open = new Map<string, [number, number]>();
    const m = tb.markers;
    const names = column(m, "name", mw, s)!;
    const start = column(m, "startTime", mw, s, false) ?? column(m, "time", mw, s, false);
    const end = column(m, "endTime", mw, s, false);
    const phase = column(m, "phase", mw, s, false);
    const data = column(m, "data", mw, s, false);
    const pairing = new Pairing(markers, counts, open);
    const startReader = new OrderedColumn(start?.cells ?? null, undefined, s);
    const endReader = new OrderedColumn(end?.cells ?? null, undefined, s);
    const phaseReader = new OrderedColumn(phase?.cells ?? null, undefined, s);
    const nameReader = new OrderedColumn(names.cells, undefined, s);
    const dataReader = new PayloadReader(data?.cells ?? null, m.payloads, s);
    for (let i = 0; i < names.length; i++) {
      const n = nameReader.next();
      const d = data === null ? undefined : dataReader.next();
      const sv = startReader.next();
      const e = endReader.next();
      const ph = phaseReader.next();
      const cat = isPlainObject(d) && typeof d.category === "string" ? d.category : null;
      const catId = cat === null ? -1 : s.intern(cat);
      // Before phases (processed v < 33), interval markers had data.startTime/endTime.
      if (phase === null && isPlainObject(d) && num(d.startTime) && num(d.endTime)) {
        markers.push(strings.id(n, `${mw}.name`, i), catId, d.startTime, d.endTime);
        continue;
      }
      const nameId = strings.id(n, `${mw}.name`, i);
      pairing.push(nameId, s.get(nameId), catId, ph ?? null, sv, e ?? null, 0);
    }
    counts.unpairedMarkers += open.size;
  }
  const stackFrame = frameIndexes(frame, `${where}.stackTable.frame`, frames.length);
  const stackPrefix = prefixIndexes(prefix, `${where}.stackTable.prefix`, stackFrame.length);
  return {
    ...threadNames(t),
    weightType,
    frames,
    stackPrefix,
    stackFrame,
    sampleCount: stack.length,
    samples: () =>
      new Samples(
        new OrderedColumn(stack.cells, undefined, s),
        new OrderedColumn(time?.cells ?? null, undefined, s),
        weight === null ? null : new OrderedColumn(weight.cells, undefined, s),
        deltas === null ? null : new OrderedColumn(deltas.cells, undefined, s),
        0,
        sw,
        stackFrame.length,
      ),
    markers,
    strings: s,
  };
}

// ---- shared checks ---------------------------------------------------------------------

/** A thread's string table: element i's string id, checked. */
function stringsOf(cells: CellColumn, _strings: HostStrings, what: string) {
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

function threadNames(t: ThreadParts) {
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
function noteNotImported(t: ThreadParts, counts: ProfileCounts): void {
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
class Pairing {
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
function frameIndexes(c: Column | null, where: string, limit: number): Int32Array {
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
function prefixIndexes(c: Column | null, where: string, stacks: number): Int32Array {
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

class Samples implements SampleReader {
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
