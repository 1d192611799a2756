/**
 * Column batches of one evidence table as an Arrow IPC stream, written straight from their typed
 * arrays: the format parquet-wasm takes a table in (WasmTable.fromIPCStream). The parse worker
 * writes every Parquet part through this writer instead of apache-arrow's, which it then never
 * loads: apache-arrow was ~45 ms of every worker's start (about half of its module loading, paid
 * by every import however small), and building a part as Arrow JS objects (Data, Vector,
 * RecordBatch, Table) before its stream was written cost per part, not per byte.
 *
 * The stream is what apache-arrow's `tableToIPC(table, "stream")` writes for the same part (see
 * column-batch-arrow.ts, which the readers' tests compare it with): a schema message with the
 * table's columns and the file's metadata (evidence-metadata.ts); then per batch a dictionary
 * batch for each dictionary column (ids are column indices; each batch's dictionary replaces the
 * last) and the record batch; then the end-of-stream marker. Messages follow the Arrow columnar
 * format's encapsulation: a continuation marker, the flatbuffer's length, the flatbuffer padded
 * to 8 bytes, then the body, each buffer at an 8-byte aligned offset.
 */
import { Builder } from "flatbuffers";
import type { ColumnBatch, ColumnVector } from "../domain/column-batch.ts";
import {
  type ColumnSpec,
  EVIDENCE_SCHEMAS,
  type EvidenceTableName,
} from "../domain/evidence-schema.ts";
import { evidenceSchemaMetadata, type Provenance } from "./evidence-metadata.ts";

// Values from the Arrow format's Schema.fbs and Message.fbs.
const METADATA_V5 = 4;
const HEADER_SCHEMA = 1;
const HEADER_DICTIONARY_BATCH = 2;
const HEADER_RECORD_BATCH = 3;
const TYPE_INT = 2;
const TYPE_FLOATING_POINT = 3;
const TYPE_UTF8 = 5;
const TYPE_BOOL = 6;
const TYPE_LIST = 12;
const PRECISION_DOUBLE = 2;

/** How a column travels: its stored type, and whether its strings come as dictionary indices. */
interface ColumnLayout {
  readonly spec: ColumnSpec;
  readonly dictionary: boolean;
}

/**
 * A stream buffer kept from part to part up to this size (a part's stream is ~8 MB, see
 * BYTES_PER_PART in workers/table-parts.ts): fresh memory costs a page fault per 4 KiB on first
 * write, and parquet-wasm copies the stream into its own memory at once.
 */
const KEPT_BYTES = 32 << 20;

/** Writes streams into one buffer, reused: each stream is valid until the next `write`. */
export class IpcStreamWriter {
  private buffer = new Uint8Array(0);
  constructor(private readonly keptBytes = KEPT_BYTES) {}

  write(
    table: EvidenceTableName,
    provenance: Provenance,
    batches: readonly ColumnBatch[],
  ): Uint8Array {
    const messages = streamMessages(table, provenance, batches);
    let size = 8; // the end-of-stream marker
    for (const m of messages) size += 8 + padded(m.header.length) + m.body.size;
    const out = size <= this.buffer.length ? this.buffer : new Uint8Array(size);
    if (size <= this.keptBytes) this.buffer = out;
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    let at = 0;
    for (const m of messages) {
      const headerBytes = padded(m.header.length);
      view.setInt32(at, -1, true);
      view.setInt32(at + 4, headerBytes, true);
      out.set(m.header, at + 8);
      out.fill(0, at + 8 + m.header.length, at + 8 + headerBytes);
      at += 8 + headerBytes;
      at = m.body.copyInto(out, at);
    }
    view.setInt32(at, -1, true);
    view.setInt32(at + 4, 0, true);
    return out.subarray(0, at + 8);
  }
}

/** A part's stream in memory of its own (what tests and one-off callers want). */
export function evidenceIpcStream(
  table: EvidenceTableName,
  provenance: Provenance,
  batches: readonly ColumnBatch[],
): Uint8Array {
  return new IpcStreamWriter(0).write(table, provenance, batches);
}

interface Message {
  header: Uint8Array;
  body: Body;
}

function streamMessages(
  table: EvidenceTableName,
  provenance: Provenance,
  batches: readonly ColumnBatch[],
): Message[] {
  const schema = EVIDENCE_SCHEMAS[table];
  const metadata = evidenceSchemaMetadata(schema, provenance);
  const layouts = partLayout(table, batches);
  const messages: Message[] = [{ header: schemaMessage(layouts, metadata), body: new Body() }];
  for (const batch of batches) {
    layouts.forEach((layout, column) => {
      if (!layout.dictionary) return;
      const body = new Body();
      const vector = batch.columns[layout.spec.name] as Extract<
        ColumnVector,
        { dictOffsets: Int32Array }
      >;
      const entries = vector.dictOffsets.length - 1;
      body.node(entries, 0);
      body.buffer(null);
      addStrings(body, vector.dictOffsets, vector.dictData, 0, entries);
      messages.push({ header: dictionaryMessage(column, entries, body), body });
    });
    const body = new Body();
    for (const layout of layouts) addColumn(body, batch.columns[layout.spec.name]!, batch.length);
    messages.push({ header: recordBatchMessage(batch.length, body), body });
  }
  return messages;
}

/**
 * The part's column layout, from its first batch (plain strings when it has none), checked
 * against the table's schema and against every other batch: a stream has one schema, and a
 * batch of another would end it.
 */
function partLayout(table: EvidenceTableName, batches: readonly ColumnBatch[]): ColumnLayout[] {
  const specs = EVIDENCE_SCHEMAS[table].columns;
  let layouts: ColumnLayout[] | null = null;
  for (const batch of batches) {
    if (batch.table !== table)
      throw new TypeError(`A batch of ${batch.table} cannot be written as ${table}`);
    const own = specs.map((spec) => batchLayout(batch, spec));
    if (layouts === null) layouts = own;
    else if (own.some((layout, i) => layout.dictionary !== layouts![i]!.dictionary))
      throw new TypeError(`The batches of a ${table} part do not share one schema`);
  }
  return layouts ?? specs.map((spec) => ({ spec, dictionary: false }));
}

function batchLayout(batch: ColumnBatch, spec: ColumnSpec): ColumnLayout {
  const vector = batch.columns[spec.name];
  if (!vector) throw new TypeError(`Batch of ${batch.table} lacks column ${spec.name}`);
  const dictionary =
    (vector.type === "utf8_dict" && spec.type === "utf8") ||
    (vector.type === "list_utf8_dict" && spec.type === "list_utf8");
  if (vector.type !== spec.type && !dictionary)
    throw new TypeError(
      `Expected ${batch.table}.${spec.name} to be ${spec.type} but the batch has ${vector.type}`,
    );
  if (vector.nullCount > 0 && !spec.nullable)
    throw new TypeError(`Expected ${spec.name} to be set but ${vector.nullCount} rows are null`);
  return { spec, dictionary };
}

/** Appends one column's field nodes and buffers, in the format's depth-first order. */
function addColumn(body: Body, vector: ColumnVector, length: number): void {
  body.node(length, vector.nullCount);
  body.buffer(validity(vector, length));
  switch (vector.type) {
    case "int32":
    case "int64":
    case "float64":
      body.buffer(bytesOf(vector.values.subarray(0, length)));
      return;
    case "bool":
      body.buffer(vector.values.subarray(0, (length + 7) >> 3));
      return;
    case "utf8":
      addStrings(body, vector.offsets, vector.data, 0, length);
      return;
    case "utf8_dict":
      body.buffer(bytesOf(vector.indices.subarray(0, length)));
      return;
    case "list_utf8": {
      const first = vector.listOffsets[0]!;
      const last = vector.listOffsets[length]!;
      body.buffer(bytesOf(rebased(vector.listOffsets, 0, length)));
      body.node(last - first, 0);
      body.buffer(null);
      addStrings(body, vector.offsets, vector.data, first, last);
      return;
    }
    case "list_utf8_dict": {
      const first = vector.listOffsets[0]!;
      const last = vector.listOffsets[length]!;
      body.buffer(bytesOf(rebased(vector.listOffsets, 0, length)));
      body.node(last - first, 0);
      body.buffer(null);
      body.buffer(bytesOf(vector.indices.subarray(first, last)));
      return;
    }
  }
}

/** Strings [from, to) of an offsets/data pair: their offsets from 0, and their bytes. */
function addStrings(
  body: Body,
  offsets: Int32Array,
  data: Uint8Array,
  from: number,
  to: number,
): void {
  body.buffer(bytesOf(rebased(offsets, from, to)));
  body.buffer(data.subarray(offsets[from]!, offsets[to]!));
}

/** offsets[from..to] (to - from + 1 entries) counted from offsets[from]. */
function rebased(offsets: Int32Array, from: number, to: number): Int32Array {
  const view = offsets.subarray(from, to + 1);
  if (view.length !== to - from + 1)
    throw new RangeError(`Offsets end at ${offsets.length - 1}, before entry ${to}`);
  const base = view[0]!;
  if (base === 0) return view;
  const out = new Int32Array(view.length);
  for (let i = 0; i < view.length; i++) out[i] = view[i]! - base;
  return out;
}

function validity(vector: ColumnVector, length: number): Uint8Array | null {
  if (vector.nullCount === 0 || vector.valid === null) return null;
  const bytes = (length + 7) >> 3;
  if (vector.valid.length < bytes)
    throw new RangeError(`A validity bitmap of ${vector.valid.length} bytes for ${length} rows`);
  return vector.valid.subarray(0, bytes);
}

function bytesOf(array: Int32Array | BigInt64Array | Float64Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function padded(bytes: number): number {
  return (bytes + 7) & ~7;
}

/** A message body: its buffers (views, copied once into the stream) and field nodes. */
class Body {
  readonly nodes: number[] = [];
  /** Per buffer: its offset in the body and its length. */
  readonly spans: number[] = [];
  private readonly pieces: (Uint8Array | null)[] = [];
  size = 0;

  node(length: number, nullCount: number): void {
    this.nodes.push(length, nullCount);
  }

  /** The next buffer (null: an absent one, as a validity bitmap without nulls). */
  buffer(bytes: Uint8Array | null): void {
    const length = bytes?.length ?? 0;
    this.spans.push(this.size, length);
    this.pieces.push(bytes);
    this.size += padded(length);
  }

  /** Copies the body into `out` at `at` (padding zeroed); returns where it ends. */
  copyInto(out: Uint8Array, at: number): number {
    for (let i = 0; i < this.pieces.length; i++) {
      const piece = this.pieces[i];
      const start = at + this.spans[2 * i]!;
      const length = this.spans[2 * i + 1]!;
      if (piece) out.set(piece, start);
      out.fill(0, start + length, start + padded(length));
    }
    return at + this.size;
  }
}

function schemaMessage(layouts: readonly ColumnLayout[], metadata: [string, string][]): Uint8Array {
  const b = new Builder(1024);
  const fields = layouts.map((layout, column) =>
    field(
      b,
      layout.spec.name,
      layout.spec.type,
      layout.spec.nullable,
      layout.dictionary ? column : -1,
    ),
  );
  const fieldVector = offsetVector(b, fields);
  const metadataVector = offsetVector(
    b,
    metadata.map(([key, value]) => {
      const k = b.createString(key);
      const v = b.createString(value);
      b.startObject(2);
      b.addFieldOffset(0, k, 0);
      b.addFieldOffset(1, v, 0);
      return b.endObject();
    }),
  );
  b.startObject(4);
  // endianness: Little, the default
  b.addFieldOffset(1, fieldVector, 0);
  b.addFieldOffset(2, metadataVector, 0);
  return finishMessage(b, HEADER_SCHEMA, b.endObject(), 0);
}

/** A Field; `dictionary` is the dictionary id of its strings (-1: plain). */
function field(
  b: Builder,
  name: string,
  type: ColumnSpec["type"],
  nullable: boolean,
  dictionary: number,
): number {
  const nameOffset = b.createString(name);
  // A list's dictionary is its items'.
  const children = type === "list_utf8" ? [field(b, "item", "utf8", false, dictionary)] : [];
  const { typeType, typeOffset } = typeTable(b, type);
  const dictionaryOffset =
    dictionary >= 0 && type !== "list_utf8" ? dictionaryEncoding(b, dictionary) : 0;
  const childVector = offsetVector(b, children);
  b.startObject(7);
  b.addFieldOffset(0, nameOffset, 0);
  b.addFieldInt8(1, nullable ? 1 : 0, 0);
  b.addFieldInt8(2, typeType, 0);
  b.addFieldOffset(3, typeOffset, 0);
  if (dictionaryOffset !== 0) b.addFieldOffset(4, dictionaryOffset, 0);
  b.addFieldOffset(5, childVector, 0);
  return b.endObject();
}

function typeTable(b: Builder, type: ColumnSpec["type"]): { typeType: number; typeOffset: number } {
  switch (type) {
    case "int32":
      return { typeType: TYPE_INT, typeOffset: intType(b, 32) };
    case "int64":
      return { typeType: TYPE_INT, typeOffset: intType(b, 64) };
    case "float64":
      b.startObject(1);
      b.addFieldInt16(0, PRECISION_DOUBLE, 0);
      return { typeType: TYPE_FLOATING_POINT, typeOffset: b.endObject() };
    case "utf8":
      b.startObject(0);
      return { typeType: TYPE_UTF8, typeOffset: b.endObject() };
    case "bool":
      b.startObject(0);
      return { typeType: TYPE_BOOL, typeOffset: b.endObject() };
    case "list_utf8":
      b.startObject(0);
      return { typeType: TYPE_LIST, typeOffset: b.endObject() };
  }
}

function intType(b: Builder, bitWidth: number): number {
  b.startObject(2);
  b.addFieldInt32(0, bitWidth, 0);
  b.addFieldInt8(1, 1, 0);
  return b.endObject();
}

/** Int32 indices into an unordered dictionary of id `id`. */
function dictionaryEncoding(b: Builder, id: number): number {
  const indexType = intType(b, 32);
  b.startObject(4);
  b.addFieldInt64(0, BigInt(id), 0n);
  b.addFieldOffset(1, indexType, 0);
  return b.endObject();
}

function recordBatchTable(b: Builder, length: number, body: Body): number {
  const structs = (values: number[]) => {
    // Structs of two int64s, written back to front as flatbuffers builds vectors.
    b.startVector(16, values.length / 2, 8);
    for (let i = values.length - 2; i >= 0; i -= 2) {
      b.prep(8, 16);
      b.writeInt64(BigInt(values[i + 1]!));
      b.writeInt64(BigInt(values[i]!));
    }
    return b.endVector();
  };
  const nodes = structs(body.nodes);
  const buffers = structs(body.spans);
  b.startObject(5);
  b.addFieldInt64(0, BigInt(length), 0n);
  b.addFieldOffset(1, nodes, 0);
  b.addFieldOffset(2, buffers, 0);
  return b.endObject();
}

function recordBatchMessage(length: number, body: Body): Uint8Array {
  const b = new Builder(256 + 32 * body.spans.length);
  return finishMessage(b, HEADER_RECORD_BATCH, recordBatchTable(b, length, body), body.size);
}

function dictionaryMessage(id: number, entries: number, body: Body): Uint8Array {
  const b = new Builder(256);
  const data = recordBatchTable(b, entries, body);
  b.startObject(3);
  b.addFieldInt64(0, BigInt(id), 0n);
  b.addFieldOffset(1, data, 0);
  // isDelta: false, the default: each batch's dictionary replaces the last.
  return finishMessage(b, HEADER_DICTIONARY_BATCH, b.endObject(), body.size);
}

function finishMessage(
  b: Builder,
  headerType: number,
  header: number,
  bodyLength: number,
): Uint8Array {
  b.startObject(5);
  b.addFieldInt16(0, METADATA_V5, 0);
  b.addFieldInt8(1, headerType, 0);
  b.addFieldOffset(2, header, 0);
  b.addFieldInt64(3, BigInt(bodyLength), 0n);
  b.finish(b.endObject());
  return b.asUint8Array();
}

function offsetVector(b: Builder, offsets: readonly number[]): number {
  b.startVector(4, offsets.length, 4);
  for (let i = offsets.length - 1; i >= 0; i--) b.addOffset(offsets[i]!);
  return b.endVector();
}
