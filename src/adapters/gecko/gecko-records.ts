/**
 * Scanner records → the parts of a Firefox Profiler document: process records (the
 * document, the devtools export's `profile`, child `processes`) with their meta, libs,
 * counters and shared strings, and each thread's ThreadParts, handed over when the
 * thread's value ends. What belongs to which process or thread is known from the
 * announcements of container records (their parent serials).
 */
import type { SpillSpace } from "../adapter.ts";
import {
  type JsonBatch,
  TAG_ABSENT,
  TAG_ARRAY,
  TAG_JSON,
  TAG_NUMBER,
  TAG_OBJECT,
  TAG_STRING,
} from "../wasm/json-batch.ts";
import { tooLarge } from "../json-guard.ts";
import { CellColumn, SPILL_BLOCK } from "./cell-column.ts";
import { GECKO_FORMAT } from "./gecko-thread.ts";
import {
  L_NAME,
  M_INTERVAL,
  M_PROCESSED_VERSION,
  M_PRODUCT,
  M_START,
  M_VERSION,
  R_CHILD,
  R_COUNTERS,
  R_DOC,
  R_LIB,
  R_LIBS,
  R_MARKER_DATA,
  R_META,
  R_PROCESSES,
  R_PROFILE,
  R_SHARED,
  R_SHARED_STRING,
  R_SHARED_STRINGS,
  R_SOURCE_FILE,
  R_SOURCES,
  R_STRING_ARRAY,
  R_STRING_ARRAY_ITEM,
  R_STRING_TABLE,
  R_STRING_TABLE_ITEM,
  R_THREAD,
  R_THREADS,
  RECORD_TABLE,
  T_NAME,
  T_PID,
  T_PROCESS_NAME,
  T_SELF,
  T_TID,
  TABLES,
  TB_CPU_DELTA,
  TB_COLUMNS,
  TB_DATA,
  TB_LENGTH,
  TB_WEIGHT_TYPE,
} from "./gecko-program.ts";
import { type LibEntry, ThreadParts } from "./thread-parts.ts";

const utf8 = new TextDecoder("utf-8");

export interface MetaParts {
  kind: number;
  version: unknown;
  processedVersion: unknown;
  interval: unknown;
  product: unknown;
  startTime: unknown;
}

export interface SharedParts {
  kind: number;
  stringsKind: number;
  readonly strings: CellColumn;
  sourcesKind: number;
  filenameKind: number;
  readonly filenames: CellColumn;
}

export interface ProcessParts {
  serial: number;
  type: number;
  parent: ProcessParts | null;
  /** Element index in the parent's `processes`. */
  index: number;
  kind: number;
  closed: boolean;
  meta: MetaParts | null;
  threadsKind: number;
  countersKind: number;
  countersCount: number;
  libsKind: number;
  libs: LibEntry[];
  shared: SharedParts | null;
  children: ProcessParts[];
}

export interface RecordEvents {
  /** A thread's value ended (an element of `process`'s `threads`, at `index`). */
  thread(thread: ThreadParts, process: ProcessParts | null, index: number): void;
  /** A process's `meta`, `libs` or `shared` ended, or the process itself. */
  processChanged(process: ProcessParts): void;
}

/** The cell of slot 0 of a record: kind and value (a number, or a string's id). */
function cellKind(b: JsonBatch, r: number): number {
  const kind = b.kind(r, 0);
  if (kind !== TAG_JSON) return kind;
  // A container captured as text: its kind is its first byte's.
  return b.textBytes(r, 0)[0] === 0x5b ? TAG_ARRAY : TAG_OBJECT;
}

function cellValue(b: JsonBatch, r: number, kind: number): number {
  if (kind === TAG_NUMBER) return b.num(r, 0);
  if (kind === TAG_STRING) return b.stringId(r, 0);
  return 0;
}

export class GeckoRecords {
  readonly processes = new Map<number, ProcessParts>();
  /** Container serial → the process (or thread) it belongs to. */
  private readonly owners = new Map<number, ProcessParts | ThreadParts>();
  private thread: ThreadParts | null = null;
  private threadSerial = -1;
  private libs: LibEntry[] = [];
  private shared: SharedParts | null = null;
  doc: ProcessParts | null = null;

  constructor(
    private readonly events: RecordEvents,
    private readonly spill: SpillSpace | null,
    /** Elements a spilling column holds before writing a block. */
    private readonly block = SPILL_BLOCK,
    /**
     * Sample rows a thread may buffer: past the event limit the import fails anyway, so the
     * buffer (and its spill) stops growing there.
     */
    private readonly maxSamples = Number.POSITIVE_INFINITY,
  ) {}

  private checkSamples(n: number): void {
    if (n > this.maxSamples) throw tooLarge(GECKO_FORMAT, "samples", n, this.maxSamples);
  }

  readonly onBatch = (b: JsonBatch): void => {
    for (let r = 0; r < b.count; r++) {
      const type = b.type(r);
      if (b.announced(r)) this.opened(b, r, type);
      else this.closed(b, r, type);
    }
  };

  private opened(b: JsonBatch, r: number, type: number): void {
    const serial = b.serial(r);
    const parent = b.parent(r);
    switch (type) {
      case R_DOC:
      case R_PROFILE:
      case R_CHILD: {
        const owner = type === R_DOC ? null : this.owners.get(parent);
        const process: ProcessParts = {
          serial,
          type,
          parent:
            owner === undefined || owner === null || owner instanceof ThreadParts ? null : owner,
          index: b.index(r),
          kind: TAG_ABSENT,
          closed: false,
          meta: null,
          threadsKind: TAG_ABSENT,
          countersKind: TAG_ABSENT,
          countersCount: 0,
          libsKind: TAG_ABSENT,
          libs: [],
          shared: null,
          children: [],
        };
        if (type === R_DOC) this.doc = process;
        if (type === R_PROFILE && this.doc !== null) {
          process.parent = this.doc;
        }
        if (type === R_CHILD) process.parent?.children.push(process);
        this.processes.set(serial, process);
        this.owners.set(serial, process);
        return;
      }
      case R_THREADS:
      case R_PROCESSES:
      case R_SHARED: {
        const owner = this.owners.get(parent);
        if (owner !== undefined) this.owners.set(serial, owner);
        if (type === R_SHARED)
          this.shared = {
            kind: TAG_ABSENT,
            stringsKind: TAG_ABSENT,
            strings: new CellColumn(),
            sourcesKind: TAG_ABSENT,
            filenameKind: TAG_ABSENT,
            filenames: new CellColumn(),
          };
        return;
      }
      case R_LIBS: {
        this.libs = [];
        const owner = parent === this.threadSerial ? this.thread : this.owners.get(parent);
        if (owner) this.owners.set(serial, owner);
        return;
      }
      case R_THREAD:
        this.thread = new ThreadParts(b.strings, this.spill, this.block);
        this.threadSerial = serial;
        return;
    }
  }

  private closed(b: JsonBatch, r: number, type: number): void {
    const t = this.thread;
    const table = RECORD_TABLE.get(type);
    if (table !== undefined) {
      if (t === null) return;
      const parts = t.tables[table.table];
      switch (table.part) {
        case "cell": {
          const kind = cellKind(b, r);
          parts.cell(b.index(r), kind, cellValue(b, r, kind));
          return;
        }
        case "column": {
          const kind = cellKind(b, r);
          const column = parts.columns[table.column]!;
          column.push(kind, cellValue(b, r, kind));
          if (table.table === "samples") this.checkSamples(column.length);
          return;
        }
        case "row":
          parts.endRow(b.selfKind(r));
          if (table.table === "samples") this.checkSamples(parts.rows);
          return;
        case "schema": {
          const fields = TABLES[table.table].fields;
          parts.setSchema(
            b.selfKind(r),
            fields.map((_, i) => b.value(r, i)),
            table.table === "samples" && b.kind(r, 3) !== TAG_ABSENT,
          );
          return;
        }
        default: {
          parts.kind = b.selfKind(r);
          parts.length = b.value(r, TB_LENGTH);
          parts.dataKind = b.kind(r, TB_DATA);
          parts.dataCount =
            parts.dataKind === TAG_ARRAY || parts.dataKind === TAG_OBJECT ? b.int(r, TB_DATA) : 0;
          parts.weightType = b.value(r, TB_WEIGHT_TYPE);
          parts.cpuDeltaKind = b.kind(r, TB_CPU_DELTA);
          for (let c = 0; c < parts.columnKinds.length; c++)
            parts.columnKinds[c] = b.kind(r, TB_COLUMNS + c);
          return;
        }
      }
    }
    switch (type) {
      case R_MARKER_DATA: {
        if (t === null) return;
        const kind = b.kind(r, 0);
        const parsed = kind === TAG_JSON ? JSON.parse(utf8.decode(b.textBytes(r, 0))) : null;
        const k = kind === TAG_JSON ? (Array.isArray(parsed) ? TAG_ARRAY : TAG_OBJECT) : kind;
        t.tables.markers.markerElement(k, cellValue(b, r, k), parsed, t.strings);
        return;
      }
      case R_STRING_TABLE_ITEM:
      case R_STRING_ARRAY_ITEM: {
        if (t === null) return;
        const kind = cellKind(b, r);
        (type === R_STRING_TABLE_ITEM ? t.stringTable : t.stringArray).push(
          kind,
          cellValue(b, r, kind),
        );
        return;
      }
      case R_STRING_TABLE:
        if (t !== null) t.stringTableKind = b.selfKind(r);
        return;
      case R_STRING_ARRAY:
        if (t !== null) t.stringArrayKind = b.selfKind(r);
        return;
      case R_LIB:
        this.libs.push({
          isObject: b.selfKind(r) === TAG_OBJECT,
          name: b.value(r, L_NAME),
        });
        return;
      case R_LIBS: {
        const owner = this.owners.get(b.serial(r));
        if (owner instanceof ThreadParts) {
          owner.libsKind = b.selfKind(r);
          owner.libs = this.libs;
        } else if (owner !== undefined) {
          owner.libsKind = b.selfKind(r);
          owner.libs = this.libs;
          this.events.processChanged(owner);
        }
        this.libs = [];
        return;
      }
      case R_THREAD: {
        if (t === null) return;
        t.selfKind = b.selfKind(r);
        if (t.selfKind === TAG_STRING) t.text = b.string(r, T_SELF)!;
        t.name = b.value(r, T_NAME);
        t.processName = b.value(r, T_PROCESS_NAME);
        t.pid = b.value(r, T_PID);
        t.tid = b.value(r, T_TID);
        const owner = this.owners.get(b.parent(r));
        this.thread = null;
        this.threadSerial = -1;
        this.events.thread(t, owner instanceof ThreadParts ? null : (owner ?? null), b.index(r));
        return;
      }
      case R_META: {
        const owner = this.owners.get(b.parent(r));
        if (owner === undefined || owner instanceof ThreadParts) return;
        owner.meta = {
          kind: b.selfKind(r),
          version: b.value(r, M_VERSION),
          processedVersion: b.value(r, M_PROCESSED_VERSION),
          interval: b.value(r, M_INTERVAL),
          product: b.value(r, M_PRODUCT),
          startTime: b.value(r, M_START),
        };
        this.events.processChanged(owner);
        return;
      }
      case R_COUNTERS: {
        const owner = this.owners.get(b.parent(r));
        if (owner === undefined || owner instanceof ThreadParts) return;
        owner.countersKind = b.kind(r, 0);
        owner.countersCount = b.int(r, 0);
        return;
      }
      case R_THREADS: {
        const owner = this.owners.get(b.serial(r));
        if (owner !== undefined && !(owner instanceof ThreadParts))
          owner.threadsKind = b.selfKind(r);
        return;
      }
      case R_SHARED_STRING:
      case R_SOURCE_FILE: {
        if (this.shared === null) return;
        const kind = cellKind(b, r);
        (type === R_SHARED_STRING ? this.shared.strings : this.shared.filenames).push(
          kind,
          cellValue(b, r, kind),
        );
        return;
      }
      case R_SHARED_STRINGS:
        if (this.shared !== null) this.shared.stringsKind = b.selfKind(r);
        return;
      case R_SOURCES:
        if (this.shared !== null) {
          this.shared.sourcesKind = b.selfKind(r);
          this.shared.filenameKind = b.kind(r, 0);
        }
        return;
      case R_SHARED: {
        const owner = this.owners.get(b.serial(r));
        if (this.shared !== null && owner !== undefined && !(owner instanceof ThreadParts)) {
          this.shared.kind = b.selfKind(r);
          owner.shared = this.shared;
          this.events.processChanged(owner);
        }
        this.shared = null;
        return;
      }
      case R_DOC:
      case R_PROFILE:
      case R_CHILD: {
        const process = this.processes.get(b.serial(r));
        if (process === undefined) return;
        process.kind = b.selfKind(r);
        process.closed = true;
        this.events.processChanged(process);
        return;
      }
    }
  }
}
