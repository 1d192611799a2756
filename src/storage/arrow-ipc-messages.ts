/**
 * The flatbuffer headers of an Arrow IPC stream's messages (the Arrow columnar format's
 * Schema.fbs and Message.fbs): the schema of an evidence part's columns, and the record and
 * dictionary batches that describe a body's field nodes and buffers. arrow-ipc-stream.ts lays
 * out the bodies and the stream around them.
 */
import { Builder } from "flatbuffers";
import type { ColumnSpec } from "../domain/evidence-schema.ts";

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
export interface ColumnLayout {
  readonly spec: ColumnSpec;
  readonly dictionary: boolean;
}

/** What a message header says of its body: field nodes and buffers, as flat pairs. */
export interface BodyLayout {
  /** Per field node: its length and its null count. */
  readonly nodes: readonly number[];
  /** Per buffer: its offset in the body and its length. */
  readonly spans: readonly number[];
  /** The body's bytes, padding included. */
  readonly size: number;
}

export function schemaMessage(
  layouts: readonly ColumnLayout[],
  metadata: [string, string][],
): Uint8Array {
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

function recordBatchTable(b: Builder, length: number, body: BodyLayout): number {
  const structs = (values: readonly number[]) => {
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

export function recordBatchMessage(length: number, body: BodyLayout): Uint8Array {
  const b = new Builder(256 + 32 * body.spans.length);
  return finishMessage(b, HEADER_RECORD_BATCH, recordBatchTable(b, length, body), body.size);
}

export function dictionaryMessage(id: number, entries: number, body: BodyLayout): Uint8Array {
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
