/**
 * The two shapes of a Firefox Profiler file, read into one model of threads:
 *
 * - Gecko's raw profile (what Firefox and the Gecko profiler write, `meta.version` 3 and
 *   later; also wrapped in a `profile` field by Firefox's old devtools export): each table
 *   is `{schema: {field: column}, data: [rows]}`, strings are per thread (`stringTable`),
 *   frames are a `location` string (`name (file:line:col)` for JavaScript), and child
 *   processes are nested in `processes` with their own `meta.startTime`.
 * - The processed profile (the profiler's own format, `meta.preprocessedProfileVersion`;
 *   samply writes it too): tables are objects of columns with a `length`, frames point to
 *   a `funcTable` (name, file, line, resource), strings are per thread (`stringArray`, or
 *   `stringTable` in older versions) or shared by all threads (`shared.stringArray`), and
 *   sample times may be `timeDeltas`.
 *
 * Times are milliseconds since the profile's start (`meta.startTime`). Every field read is
 * checked, so a wrong file fails naming the field.
 */
import { expectationFailed, isPlainObject, parseFailed } from "../../../src/adapters/json-guard.ts";

export const GECKO_FORMAT = "Firefox Profiler profile";

export interface GeckoFrame {
  name: string;
  file: string | null;
  line: number | null;
  column: number | null;
  module: string | null;
  js: boolean;
}

export interface GeckoMarker {
  name: string;
  category: string | null;
  startMs: number;
  /** Null for an instant marker. */
  endMs: number | null;
}

export interface GeckoThread {
  name: string;
  processName: string | null;
  pid: string | null;
  tid: string | null;
  /** Stack index per sample (null: no stack), time in ms since the profile's start, weight. */
  sampleStack: (number | null)[];
  sampleTime: number[];
  sampleWeight: number[];
  weightType: "samples" | "tracing-ms" | "bytes";
  stackPrefix: (number | null)[];
  stackFrame: number[];
  frames: GeckoFrame[];
  markers: GeckoMarker[];
}

export interface GeckoProfile {
  shape: "raw" | "processed";
  version: number | null;
  product: string | null;
  intervalMs: number;
  threads: GeckoThread[];
  /** Markers that started or ended without their pair, counted. */
  unpairedMarkers: number;
  /**
   * What the file holds that is not imported, by kind: counts of threads (or counters) carrying it.
   */
  notImported: { allocations: number; cpuDeltas: number; counters: number };
}

type Obj = Record<string, unknown>;

const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const positiveInt = (v: unknown): number | null =>
  num(v) && Number.isInteger(v) && v > 0 && v < 2 ** 31 ? v : null;

export function readGeckoProfile(value: unknown): GeckoProfile {
  if (!isPlainObject(value))
    throw expectationFailed(GECKO_FORMAT, "the top level", "an object", value);
  // Firefox's old devtools export wraps the Gecko profile.
  const root = !isPlainObject(value.meta) && isPlainObject(value.profile) ? value.profile : value;
  const meta = root.meta;
  if (!isPlainObject(meta)) throw expectationFailed(GECKO_FORMAT, "meta", "an object", meta);
  if (!Array.isArray(root.threads))
    throw expectationFailed(GECKO_FORMAT, "threads", "an array", root.threads);
  const processed = num(meta.preprocessedProfileVersion);
  const intervalMs = num(meta.interval) && meta.interval > 0 ? meta.interval : 1;
  const profile: GeckoProfile = {
    shape: processed ? "processed" : "raw",
    version: processed
      ? (meta.preprocessedProfileVersion as number)
      : num(meta.version)
        ? meta.version
        : null,
    product: typeof meta.product === "string" ? meta.product : null,
    intervalMs,
    threads: [],
    unpairedMarkers: 0,
    notImported: {
      allocations: 0,
      cpuDeltas: 0,
      counters: Array.isArray(root.counters) ? root.counters.length : 0,
    },
  };
  if (processed) {
    const shared = isPlainObject(root.shared) ? root.shared : {};
    const sharedStrings = Array.isArray(shared.stringArray) ? shared.stringArray : null;
    root.threads.forEach((t, i) =>
      profile.threads.push(
        processedThread(t, `threads[${i}]`, sharedStrings, root, shared, profile),
      ),
    );
  } else {
    if (!num(meta.version) || meta.version < 3)
      throw parseFailed(
        GECKO_FORMAT,
        `expected meta.version to be 3 or later but found ${JSON.stringify(meta.version)}`,
      );
    rawProcess(root, "", 0, profile);
  }
  return profile;
}

// ---- raw Gecko profiles ------------------------------------------------------------

/** A raw table's column by field name (absent field: null column). */
function rawColumn(table: unknown, field: string, where: string): unknown[] | null {
  if (!isPlainObject(table) || !isPlainObject(table.schema) || !Array.isArray(table.data))
    throw expectationFailed(GECKO_FORMAT, where, "a {schema, data} table", table);
  const index = table.schema[field];
  if (index === undefined) return null;
  if (!num(index))
    throw expectationFailed(GECKO_FORMAT, `${where}.schema.${field}`, "a column index", index);
  return table.data.map((row, r) => {
    if (!Array.isArray(row))
      throw expectationFailed(GECKO_FORMAT, `${where}.data[${r}]`, "an array", row);
    return row[index] ?? null;
  });
}

function rawProcess(process: Obj, path: string, offsetMs: number, profile: GeckoProfile): void {
  const meta = process.meta as Obj;
  const threads = Array.isArray(process.threads) ? process.threads : [];
  threads.forEach((raw, i) => {
    const where = `${path}threads[${i}]`;
    // Gecko before version 4 wrote each thread as a JSON string.
    const t = typeof raw === "string" ? parseThreadString(raw, where) : raw;
    profile.threads.push(rawThread(t, where, offsetMs, profile));
  });
  const children = Array.isArray(process.processes) ? process.processes : [];
  children.forEach((child, i) => {
    const where = `${path}processes[${i}]`;
    if (!isPlainObject(child) || !isPlainObject(child.meta))
      throw expectationFailed(
        GECKO_FORMAT,
        `${where}.meta`,
        "an object",
        isPlainObject(child) ? child.meta : child,
      );
    const childStart = num(child.meta.startTime) ? child.meta.startTime : null;
    const rootStart = num(meta.startTime) ? meta.startTime : null;
    rawProcess(
      child,
      `${where}.`,
      offsetMs + (childStart !== null && rootStart !== null ? childStart - rootStart : 0),
      profile,
    );
  });
}

function parseThreadString(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw parseFailed(GECKO_FORMAT, `${where} is a string that is not a JSON thread`, error);
  }
}

const JS_LOCATION = /^(.*)\s+\((.*?)(?::(\d+))?(?::(\d+))?\)$/;

function rawThread(
  t: unknown,
  where: string,
  offsetMs: number,
  profile: GeckoProfile,
): GeckoThread {
  if (!isPlainObject(t)) throw expectationFailed(GECKO_FORMAT, where, "an object", t);
  noteNotImported(t, profile);
  const strings = t.stringTable;
  if (!Array.isArray(strings))
    throw expectationFailed(GECKO_FORMAT, `${where}.stringTable`, "an array", strings);
  const str = (i: unknown, field: string): string => {
    if (!num(i) || typeof strings[i] !== "string")
      throw expectationFailed(GECKO_FORMAT, field, "an index into stringTable", i);
    return strings[i] as string;
  };
  const location = rawColumn(t.frameTable, "location", `${where}.frameTable`) ?? [];
  const lines = rawColumn(t.frameTable, "line", `${where}.frameTable`);
  const columns = rawColumn(t.frameTable, "column", `${where}.frameTable`);
  const frames = location.map((l, f): GeckoFrame => {
    const text = str(l, `${where}.frameTable.location[${f}]`);
    const js = JS_LOCATION.exec(text);
    const line = positiveInt(lines?.[f]);
    const column = positiveInt(columns?.[f]);
    if (js && js[2] !== "") {
      return {
        name: js[1]!.trim() || "(anonymous)",
        file: js[2]!,
        line: js[3] ? Number(js[3]) : line,
        column: js[4] ? Number(js[4]) + 1 : column,
        module: null,
        js: true,
      };
    }
    return { name: text, file: null, line, column, module: null, js: false };
  });
  const stackPrefix = (rawColumn(t.stackTable, "prefix", `${where}.stackTable`) ?? []) as (
    | number
    | null
  )[];
  const stackFrame = (rawColumn(t.stackTable, "frame", `${where}.stackTable`) ?? []) as number[];
  const stack = rawColumn(t.samples, "stack", `${where}.samples`) ?? [];
  const time = rawColumn(t.samples, "time", `${where}.samples`);
  const weight = rawColumn(t.samples, "weight", `${where}.samples`);
  const markers: GeckoMarker[] = [];
  const names = rawColumn(t.markers, "name", `${where}.markers`) ?? [];
  const start =
    rawColumn(t.markers, "startTime", `${where}.markers`) ??
    rawColumn(t.markers, "time", `${where}.markers`) ??
    [];
  const end = rawColumn(t.markers, "endTime", `${where}.markers`);
  const phase = rawColumn(t.markers, "phase", `${where}.markers`);
  const data = rawColumn(t.markers, "data", `${where}.markers`);
  const category = rawColumn(t.markers, "category", `${where}.markers`);
  const open = new Map<string, number>();
  const phased = new Map<string, number>();
  names.forEach((n, m) => {
    const name = str(n, `${where}.markers.name[${m}]`);
    const d = data?.[m];
    const s = start[m];
    const e = end?.[m];
    const cat =
      isPlainObject(d) && typeof d.category === "string"
        ? d.category
        : typeof category?.[m] === "string"
          ? (category[m] as string)
          : null;
    // Old tracing markers: a start and an end marker of one name (data.interval).
    if (
      phase === null &&
      isPlainObject(d) &&
      (d.interval === "start" || d.interval === "end") &&
      num(s)
    ) {
      const key = `${name}\u0000${cat}`;
      if (d.interval === "start") {
        if (open.has(key)) profile.unpairedMarkers++;
        open.set(key, s);
      } else {
        const began = open.get(key);
        if (began === undefined) profile.unpairedMarkers++;
        else {
          open.delete(key);
          markers.push({ name, category: cat, startMs: began + offsetMs, endMs: s + offsetMs });
        }
      }
      return;
    }
    pushMarker(markers, name, cat, phase?.[m] ?? null, s, e ?? null, offsetMs, profile, phased);
  });
  profile.unpairedMarkers += open.size + phased.size;
  return {
    name: typeof t.name === "string" ? t.name : "thread",
    processName: typeof t.processName === "string" ? t.processName : null,
    pid: t.pid === undefined || t.pid === null ? null : String(t.pid),
    tid: t.tid === undefined || t.tid === null ? null : String(t.tid),
    sampleStack: stack.map((s, i) =>
      stackIndex(s, `${where}.samples.stack[${i}]`, stackFrame.length),
    ),
    sampleTime: stack.map((_, i) =>
      num(time?.[i]) ? (time![i] as number) + offsetMs : Number.NaN,
    ),
    sampleWeight: stack.map((_, i) =>
      weight === null ? 1 : checkedWeight(weight[i], `${where}.samples.weight[${i}]`),
    ),
    weightType: "samples",
    stackPrefix: stackPrefix.map((p, i) => stackIndex(p, `${where}.stackTable.prefix[${i}]`, i)),
    stackFrame: stackFrame.map((f, i) =>
      frameIndex(f, `${where}.stackTable.frame[${i}]`, frames.length),
    ),
    frames,
    markers,
  };
}

// ---- processed profiles -----------------------------------------------------------

function column(table: unknown, field: string, where: string, required = true): unknown[] | null {
  if (!isPlainObject(table))
    throw expectationFailed(GECKO_FORMAT, where, "an object of columns", table);
  const c = table[field];
  if (c === undefined || c === null) {
    if (required) throw expectationFailed(GECKO_FORMAT, `${where}.${field}`, "an array", c);
    return null;
  }
  if (!Array.isArray(c)) throw expectationFailed(GECKO_FORMAT, `${where}.${field}`, "an array", c);
  return c;
}

function processedThread(
  t: unknown,
  where: string,
  sharedStrings: unknown[] | null,
  root: Obj,
  shared: Obj,
  profile: GeckoProfile,
): GeckoThread {
  if (!isPlainObject(t)) throw expectationFailed(GECKO_FORMAT, where, "an object", t);
  noteNotImported(t, profile);
  const strings = Array.isArray(t.stringArray)
    ? t.stringArray
    : Array.isArray(t.stringTable)
      ? t.stringTable
      : sharedStrings;
  if (strings === null)
    throw expectationFailed(
      GECKO_FORMAT,
      `${where}.stringArray (or shared.stringArray)`,
      "an array",
      t.stringArray,
    );
  const str = (i: unknown, field: string): string => {
    if (!num(i) || typeof strings[i] !== "string")
      throw expectationFailed(GECKO_FORMAT, field, "an index into the string array", i);
    return strings[i] as string;
  };
  const libs = Array.isArray(t.libs) ? t.libs : Array.isArray(root.libs) ? root.libs : [];
  const funcName = column(t.funcTable, "name", `${where}.funcTable`)!;
  const funcFile = column(t.funcTable, "fileName", `${where}.funcTable`, false);
  const funcSource = column(t.funcTable, "source", `${where}.funcTable`, false);
  const sourceFiles = isPlainObject(shared.sources)
    ? column(shared.sources, "filename", "shared.sources", false)
    : null;
  const funcLine = column(t.funcTable, "lineNumber", `${where}.funcTable`, false);
  const funcColumn = column(t.funcTable, "columnNumber", `${where}.funcTable`, false);
  const funcIsJS = column(t.funcTable, "isJS", `${where}.funcTable`, false);
  const funcResource = column(t.funcTable, "resource", `${where}.funcTable`, false);
  const resourceName = isPlainObject(t.resourceTable)
    ? column(t.resourceTable, "name", `${where}.resourceTable`, false)
    : null;
  const resourceLib = isPlainObject(t.resourceTable)
    ? column(t.resourceTable, "lib", `${where}.resourceTable`, false)
    : null;
  const funcs = funcName.map((n, f): GeckoFrame => {
    const fileIndex =
      funcFile?.[f] ??
      (funcSource?.[f] !== undefined && funcSource?.[f] !== null && sourceFiles
        ? sourceFiles[funcSource[f] as number]
        : null);
    const r = funcResource?.[f];
    let module: string | null = null;
    if (num(r) && r >= 0) {
      const lib = resourceLib?.[r];
      const libName = num(lib) && isPlainObject(libs[lib]) ? (libs[lib] as Obj).name : undefined;
      module =
        typeof libName === "string"
          ? libName
          : num(resourceName?.[r])
            ? str(resourceName![r], `${where}.resourceTable.name[${r}]`)
            : null;
    }
    return {
      name: str(n, `${where}.funcTable.name[${f}]`),
      file:
        fileIndex === null || fileIndex === undefined
          ? null
          : str(fileIndex, `${where}.funcTable.fileName[${f}]`),
      line: positiveInt(funcLine?.[f]),
      column: positiveInt(funcColumn?.[f]),
      module,
      js: funcIsJS?.[f] === true,
    };
  });
  const frameFunc = column(t.frameTable, "func", `${where}.frameTable`)!;
  const frames = frameFunc.map((f, i) => {
    if (!num(f) || f < 0 || f >= funcs.length)
      throw expectationFailed(
        GECKO_FORMAT,
        `${where}.frameTable.func[${i}]`,
        `a func index below ${funcs.length}`,
        f,
      );
    return funcs[f]!;
  });
  const stackFrame = column(t.stackTable, "frame", `${where}.stackTable`)!;
  const stackPrefix = column(t.stackTable, "prefix", `${where}.stackTable`)!;
  const samples = t.samples;
  const stack = column(samples, "stack", `${where}.samples`)!;
  let time = column(samples, "time", `${where}.samples`, false) as number[] | null;
  if (time === null) {
    const deltas = column(samples, "timeDeltas", `${where}.samples`);
    let at = 0;
    time = deltas!.map((d) => (at += num(d) ? d : Number.NaN));
  }
  const weight = column(samples, "weight", `${where}.samples`, false);
  const weightType = (samples as Obj).weightType ?? "samples";
  if (weightType !== "samples" && weightType !== "tracing-ms" && weightType !== "bytes")
    throw expectationFailed(
      GECKO_FORMAT,
      `${where}.samples.weightType`,
      '"samples", "tracing-ms" or "bytes"',
      weightType,
    );
  const markers: GeckoMarker[] = [];
  if (isPlainObject(t.markers)) {
    const open = new Map<string, number>();
    const names = column(t.markers, "name", `${where}.markers`)!;
    const start =
      column(t.markers, "startTime", `${where}.markers`, false) ??
      column(t.markers, "time", `${where}.markers`, false) ??
      [];
    const end = column(t.markers, "endTime", `${where}.markers`, false);
    const phase = column(t.markers, "phase", `${where}.markers`, false);
    const data = column(t.markers, "data", `${where}.markers`, false);
    names.forEach((n, m) => {
      const d = data?.[m];
      const cat = isPlainObject(d) && typeof d.category === "string" ? d.category : null;
      // Before phases (processed v < 33), interval markers had data.startTime/endTime.
      if (phase === null && isPlainObject(d) && num(d.startTime) && num(d.endTime)) {
        markers.push({
          name: str(n, `${where}.markers.name[${m}]`),
          category: cat,
          startMs: d.startTime,
          endMs: d.endTime,
        });
        return;
      }
      pushMarker(
        markers,
        str(n, `${where}.markers.name[${m}]`),
        cat,
        phase?.[m] ?? null,
        start[m],
        end?.[m] ?? null,
        0,
        profile,
        open,
      );
    });
    profile.unpairedMarkers += open.size;
  }
  return {
    name: typeof t.name === "string" ? t.name : "thread",
    processName: typeof t.processName === "string" ? t.processName : null,
    pid: t.pid === undefined || t.pid === null ? null : String(t.pid),
    tid: t.tid === undefined || t.tid === null ? null : String(t.tid),
    sampleStack: stack.map((s, i) =>
      stackIndex(s, `${where}.samples.stack[${i}]`, stackFrame.length),
    ),
    sampleTime: stack.map((_, i) => (num(time![i]) ? time![i]! : Number.NaN)),
    sampleWeight: stack.map((_, i) =>
      weight === null ? 1 : checkedWeight(weight[i], `${where}.samples.weight[${i}]`),
    ),
    weightType,
    stackPrefix: stackPrefix.map((p, i) => stackIndex(p, `${where}.stackTable.prefix[${i}]`, i)),
    stackFrame: stackFrame.map((f, i) =>
      frameIndex(f, `${where}.stackTable.frame[${i}]`, frames.length),
    ),
    frames,
    markers,
  };
}

// ---- shared checks ------------------------------------------------------------------

const hasRows = (table: unknown): boolean =>
  isPlainObject(table) &&
  ((num(table.length) && table.length > 0) || (Array.isArray(table.data) && table.data.length > 0));

/** Allocation tables and per-sample CPU deltas are kept in the native artifact, not imported. */
function noteNotImported(t: Obj, profile: GeckoProfile): void {
  if (hasRows(t.jsAllocations) || hasRows(t.nativeAllocations)) profile.notImported.allocations++;
  const samples = t.samples;
  const cpu =
    isPlainObject(samples) &&
    (Array.isArray(samples.threadCPUDelta) ||
      (isPlainObject(samples.schema) && samples.schema.threadCPUDelta !== undefined));
  if (cpu && hasRows(samples)) profile.notImported.cpuDeltas++;
}

/**
 * Marker phases: 0 instant, 1 interval, 2 interval start, 3 interval end (processed v33+ and raw
 * v20+).
 */
function pushMarker(
  out: GeckoMarker[],
  name: string,
  category: string | null,
  phase: unknown,
  start: unknown,
  end: unknown,
  offsetMs: number,
  profile: GeckoProfile,
  open: Map<string, number>,
): void {
  if (phase === 1 && num(start) && num(end))
    out.push({ name, category, startMs: start + offsetMs, endMs: Math.max(start, end) + offsetMs });
  else if ((phase === 0 || phase === null) && num(start))
    out.push({ name, category, startMs: start + offsetMs, endMs: null });
  else if (phase === 2 && num(start)) {
    // A start waits for the next end of the same name, as the profiler pairs them.
    if (open.has(name)) profile.unpairedMarkers++;
    open.set(name, start + offsetMs);
  } else if (phase === 3 && num(end)) {
    const began = open.get(name);
    if (began === undefined) profile.unpairedMarkers++;
    else {
      open.delete(name);
      out.push({ name, category, startMs: began, endMs: Math.max(began, end + offsetMs) });
    }
  } else profile.unpairedMarkers++;
}

/** A stack index below `limit` (a prefix must point to an earlier stack, so walks end), or null. */
function stackIndex(v: unknown, where: string, limit: number): number | null {
  if (v === null || v === undefined) return null;
  if (!num(v) || !Number.isInteger(v) || v < 0 || v >= limit)
    throw expectationFailed(GECKO_FORMAT, where, `null or a stack index below ${limit}`, v);
  return v;
}

function frameIndex(v: unknown, where: string, limit: number): number {
  if (!num(v) || !Number.isInteger(v) || v < 0 || v >= limit)
    throw expectationFailed(GECKO_FORMAT, where, `a frame index below ${limit}`, v);
  return v;
}

function checkedWeight(v: unknown, where: string): number {
  if (v === null || v === undefined) return 1;
  if (!num(v) || v < 0) throw expectationFailed(GECKO_FORMAT, where, "a non-negative number", v);
  return v;
}
