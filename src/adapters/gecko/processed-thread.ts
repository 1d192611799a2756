/**
 * A processed-format thread (column tables: frameTable, funcTable, resourceTable, stackTable,
 * per-thread or shared strings and sources, libs) → a checked GeckoThread (see
 * gecko-thread.ts).
 */
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import type { HostStrings } from "../wasm/host-strings.ts";
import { sampleOfKind, TAG_ABSENT, TAG_ARRAY, TAG_NULL, TAG_OBJECT } from "../wasm/json-batch.ts";
import type { CellColumn } from "./cell-column.ts";
import type { SharedParts } from "./gecko-records.ts";
import { TABLES } from "./gecko-program.ts";
import type { LibEntry, TableParts, ThreadParts } from "./thread-parts.ts";
import {
  type Column,
  GECKO_FORMAT,
  type GeckoFrame,
  type GeckoThread,
  MarkerColumns,
  OrderedColumn,
  Pairing,
  PayloadReader,
  type ProfileCounts,
  Samples,
  columnOf,
  frameIndexes,
  noteNotImported,
  num,
  positiveInt,
  prefixIndexes,
  stringsOf,
  threadNames,
} from "./gecko-thread.ts";

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
