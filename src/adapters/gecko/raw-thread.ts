/**
 * A raw Gecko thread (`{schema, data}` tables, per-thread `stringTable`) → a checked
 * GeckoThread: frames named from their `location` strings (`name (file:line:col)` for
 * JavaScript), stacks, samples read in order, markers paired (see gecko-thread.ts).
 */
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import type { HostStrings } from "../wasm/host-strings.ts";
import { sampleOfKind, TAG_ARRAY, TAG_OBJECT } from "../wasm/json-batch.ts";
import { TABLES } from "./gecko-program.ts";
import type { TableParts, ThreadParts } from "./thread-parts.ts";
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
