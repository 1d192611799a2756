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
import type { ColumnBatch, ColumnVector } from "../domain/column-batch.ts";
import {
  type ColumnSpec,
  EVIDENCE_SCHEMAS,
  type EvidenceTableName,
} from "../domain/evidence-schema.ts";
import {
  type BodyLayout,
  type ColumnLayout,
  dictionaryMessage,
  recordBatchMessage,
  schemaMessage,
} from "./arrow-ipc-messages.ts";
import { evidenceSchemaMetadata, type Provenance } from "./evidence-metadata.ts";

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
    case "list_utf8":
    case "list_utf8_dict": {
      // The lists' offsets, then their items: one child array, never null.
      const first = vector.listOffsets[0]!;
      const last = vector.listOffsets[length]!;
      body.buffer(bytesOf(rebased(vector.listOffsets, 0, length)));
      body.node(last - first, 0);
      body.buffer(null);
      if (vector.type === "list_utf8") addStrings(body, vector.offsets, vector.data, first, last);
      else body.buffer(bytesOf(vector.indices.subarray(first, last)));
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
class Body implements BodyLayout {
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
