/**
 * What the WASM JSON scanner extracts from a Firefox Profiler file. The document, the
 * devtools export's `profile` and every child process are process records holding the
 * same keys (`meta`, `threads`, `processes`, `libs`, `counters`, `shared`), so one
 * description serves all of them; processes nest to any depth through a cycle in the
 * program. A thread's tables are records of their own: a raw table's rows (`data`) are
 * row records whose elements are cell records (their position is the column), a
 * processed table's columns are arrays whose elements are records, and raw marker rows
 * (or a processed profile's marker `data` column, the same key) are captured as JSON
 * text, since they hold payload objects. Container records are announced when they open,
 * so the reader knows which process or thread the records inside them belong to.
 */
import { JsonProgram, MODE_JSON_IF_CONTAINER, MODE_SCALAR } from "../wasm/json-program.ts";

const ANY = MODE_SCALAR | MODE_JSON_IF_CONTAINER;

export const R_DOC = 0;
export const R_PROFILE = 1;
export const R_CHILD = 2;
export const R_META = 3;
export const R_THREADS = 4;
export const R_PROCESSES = 5;
export const R_COUNTERS = 6;
export const R_LIBS = 7;
export const R_LIB = 8;
export const R_SHARED = 9;
export const R_SHARED_STRINGS = 10;
export const R_SHARED_STRING = 11;
export const R_SOURCES = 12;
export const R_SOURCE_FILE = 13;
export const R_THREAD = 14;
export const R_STRING_TABLE = 15;
export const R_STRING_TABLE_ITEM = 16;
export const R_STRING_ARRAY = 17;
export const R_STRING_ARRAY_ITEM = 18;
/** A raw marker row or a processed marker's `data` element, as JSON text when a container. */
export const R_MARKER_DATA = 19;
const FIRST_TABLE_RECORD = 32;

/** Meta slots. */
export const M_VERSION = 0;
export const M_PROCESSED_VERSION = 1;
export const M_INTERVAL = 2;
export const M_PRODUCT = 3;
export const M_START = 4;

/** Thread slots. */
export const T_SELF = 0;
export const T_NAME = 1;
export const T_PROCESS_NAME = 2;
export const T_PID = 3;
export const T_TID = 4;

/** Table slots: `length`, `data` (kind and count), `weightType`, `threadCPUDelta`, then columns. */
export const TB_LENGTH = 0;
export const TB_DATA = 1;
export const TB_WEIGHT_TYPE = 2;
export const TB_CPU_DELTA = 3;
export const TB_COLUMNS = 4;

/** Lib slots. */
export const L_NAME = 0;

export type TableName =
  | "frameTable"
  | "stackTable"
  | "samples"
  | "markers"
  | "funcTable"
  | "resourceTable"
  | "jsAllocations"
  | "nativeAllocations";

/**
 * Per table: raw schema fields read (their cells are kept) and processed columns read. Raw
 * marker rows are captured whole (`rows: "json"`) because their `data` cells are payload
 * objects and the key is a column in the processed shape.
 */
export const TABLES: Record<TableName, { fields: string[]; columns: string[]; rows: boolean }> = {
  frameTable: { fields: ["location", "line", "column"], columns: ["func"], rows: true },
  stackTable: { fields: ["prefix", "frame"], columns: ["frame", "prefix"], rows: true },
  samples: {
    fields: ["stack", "time", "weight"],
    columns: ["stack", "time", "timeDeltas", "weight"],
    rows: true,
  },
  markers: {
    fields: ["name", "startTime", "time", "endTime", "phase", "data", "category"],
    columns: ["name", "startTime", "time", "endTime", "phase"],
    rows: false,
  },
  funcTable: {
    fields: [],
    columns: ["name", "fileName", "source", "lineNumber", "columnNumber", "isJS", "resource"],
    rows: false,
  },
  resourceTable: { fields: [], columns: ["name", "lib"], rows: false },
  jsAllocations: { fields: [], columns: [], rows: false },
  nativeAllocations: { fields: [], columns: [], rows: false },
};

export const TABLE_NAMES = Object.keys(TABLES) as TableName[];

/** Record types of one table: the table, its schema, a row, a cell, and each column's element. */
export interface TableRecords {
  table: number;
  schema: number;
  row: number;
  cell: number;
  column: number[];
}

/** Record types by table, and the table (and column) of a table record type. */
export const TABLE_RECORDS = new Map<TableName, TableRecords>();
export const RECORD_TABLE = new Map<number, { table: TableName; part: string; column: number }>();
{
  let next = FIRST_TABLE_RECORD;
  for (const name of TABLE_NAMES) {
    const spec = TABLES[name];
    const records: TableRecords = {
      table: next++,
      schema: next++,
      row: next++,
      cell: next++,
      column: spec.columns.map(() => next++),
    };
    TABLE_RECORDS.set(name, records);
    RECORD_TABLE.set(records.table, { table: name, part: "table", column: -1 });
    RECORD_TABLE.set(records.schema, { table: name, part: "schema", column: -1 });
    RECORD_TABLE.set(records.row, { table: name, part: "row", column: -1 });
    RECORD_TABLE.set(records.cell, { table: name, part: "cell", column: -1 });
    records.column.forEach((r, c) =>
      RECORD_TABLE.set(r, { table: name, part: "column", column: c }),
    );
  }
}

const SLOTS = Math.max(TB_COLUMNS + 7, ...TABLE_NAMES.map((t) => TABLES[t].fields.length));

/** The whole document: process records at the top, under `profile` and in `processes`. */
export function geckoProgram(): JsonProgram {
  const p = new JsonProgram(SLOTS);
  const meta = metaNode(p);
  const threads = p.node({ record: R_THREADS });
  p.elem(threads, threadNode(p, p.node()));
  const libs = libsNode(p);
  const counters = p.node({ record: R_COUNTERS });
  p.slot(counters, R_COUNTERS, 0);
  const shared = sharedNode(p);
  const processes = p.node({ record: R_PROCESSES });
  const child = p.node({ record: R_CHILD });
  p.elem(processes, child);
  const processKeys = (node: number) => {
    p.key(node, "meta", meta);
    p.key(node, "threads", threads);
    p.key(node, "processes", processes);
    p.key(node, "libs", libs);
    p.key(node, "counters", counters);
    p.key(node, "shared", shared);
  };
  p.record(0, R_DOC);
  processKeys(0);
  processKeys(child);
  const profile = p.key(0, "profile", p.node({ record: R_PROFILE }));
  processKeys(profile);
  for (const r of [R_DOC, R_PROFILE, R_CHILD, R_THREADS, R_PROCESSES, R_THREAD, R_LIBS, R_SHARED])
    p.announce(r);
  return p;
}

/** A thread alone (old Gecko wrote each thread as a JSON string, read by a second scanner). */
export function threadProgram(): JsonProgram {
  const p = new JsonProgram(SLOTS);
  threadNode(p, 0);
  for (const r of [R_THREAD, R_LIBS]) p.announce(r);
  return p;
}

function metaNode(p: JsonProgram): number {
  const meta = p.node({ record: R_META });
  const fields: [string, number][] = [
    ["version", M_VERSION],
    ["preprocessedProfileVersion", M_PROCESSED_VERSION],
    ["interval", M_INTERVAL],
    ["product", M_PRODUCT],
    ["startTime", M_START],
  ];
  for (const [key, slot] of fields) p.slot(p.key(meta, key), R_META, slot, ANY);
  return meta;
}

function libsNode(p: JsonProgram): number {
  const libs = p.node({ record: R_LIBS });
  const lib = p.elem(libs, p.node({ record: R_LIB }));
  p.slot(p.key(lib, "name"), R_LIB, L_NAME, ANY);
  return libs;
}

function sharedNode(p: JsonProgram): number {
  const shared = p.node({ record: R_SHARED });
  const strings = p.key(shared, "stringArray", p.node({ record: R_SHARED_STRINGS }));
  p.slot(p.elem(strings, p.node({ record: R_SHARED_STRING })), R_SHARED_STRING, 0, ANY);
  const sources = p.key(shared, "sources", p.node({ record: R_SOURCES }));
  const filename = p.key(sources, "filename");
  p.slot(filename, R_SOURCES, 0);
  p.slot(p.elem(filename, p.node({ record: R_SOURCE_FILE })), R_SOURCE_FILE, 0, ANY);
  return shared;
}

function threadNode(p: JsonProgram, thread: number): number {
  p.record(thread, R_THREAD);
  p.slot(thread, R_THREAD, T_SELF);
  const fields: [string, number][] = [
    ["name", T_NAME],
    ["processName", T_PROCESS_NAME],
    ["pid", T_PID],
    ["tid", T_TID],
  ];
  for (const [key, slot] of fields) p.slot(p.key(thread, key), R_THREAD, slot, ANY);
  const stringTable = p.key(thread, "stringTable", p.node({ record: R_STRING_TABLE }));
  p.slot(p.elem(stringTable, p.node({ record: R_STRING_TABLE_ITEM })), R_STRING_TABLE_ITEM, 0, ANY);
  const stringArray = p.key(thread, "stringArray", p.node({ record: R_STRING_ARRAY }));
  p.slot(p.elem(stringArray, p.node({ record: R_STRING_ARRAY_ITEM })), R_STRING_ARRAY_ITEM, 0, ANY);
  p.key(thread, "libs", libsNode(p));
  for (const name of TABLE_NAMES) tableNode(p, p.key(thread, name), name);
  return thread;
}

function tableNode(p: JsonProgram, node: number, name: TableName): void {
  const spec = TABLES[name];
  const r = TABLE_RECORDS.get(name)!;
  p.record(node, r.table);
  p.slot(p.key(node, "length"), r.table, TB_LENGTH, ANY);
  const data = p.key(node, "data");
  p.slot(data, r.table, TB_DATA);
  if (name === "samples") {
    p.slot(p.key(node, "weightType"), r.table, TB_WEIGHT_TYPE, ANY);
    p.slot(p.key(node, "threadCPUDelta"), r.table, TB_CPU_DELTA);
  }
  if (name === "markers") {
    // Raw rows and processed payloads share the key: each element captured as JSON text.
    p.slot(p.elem(data, p.node({ record: R_MARKER_DATA })), R_MARKER_DATA, 0, ANY);
  } else if (spec.rows) {
    const row = p.elem(data, p.node({ record: r.row }));
    p.slot(p.elem(row, p.node({ record: r.cell })), r.cell, 0, ANY);
  }
  if (spec.fields.length > 0 || name === "samples") {
    const schema = p.key(node, "schema", p.node({ record: r.schema }));
    spec.fields.forEach((field, i) => p.slot(p.key(schema, field), r.schema, i, ANY));
    // Only its presence matters (CPU deltas are not imported).
    if (name === "samples") p.slot(p.key(schema, "threadCPUDelta"), r.schema, 3, ANY);
  }
  spec.columns.forEach((column, c) => {
    const key = p.key(node, column);
    p.slot(key, r.table, TB_COLUMNS + c);
    p.slot(p.elem(key, p.node({ record: r.column[c]! })), r.column[c]!, 0, ANY);
  });
}
