/**
 * OTLP protobuf KeyValue / AnyValue bytes → typed attributes (same shapes as OTLP/JSON).
 * The readable decoder: the stream path writes the same JSON straight to bytes
 * (proto-attributes-json.ts), and tests hold the two equal.
 */
import { ProtoReader, decodeUtf8 } from "../wasm/proto-reader.ts";
import { base64, doubleValue, type TypedAttribute, type TypedValue } from "./attributes.ts";

export const OTLP_PROTO_FORMAT = "OTLP protobuf trace";

export function protoKeyValue(bytes: Uint8Array): TypedAttribute {
  const r = new ProtoReader(bytes, OTLP_PROTO_FORMAT);
  let key = "";
  let value: TypedValue = ["empty", null];
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 2) key = decodeUtf8(r.lengthDelimited());
    else if (field === 2 && wire === 2) value = protoAnyValue(r.lengthDelimited());
    else r.skip(wire);
  }
  return [key, value[0], value[1]];
}

export function protoAnyValue(bytes: Uint8Array): TypedValue {
  const r = new ProtoReader(bytes, OTLP_PROTO_FORMAT);
  let value: TypedValue = ["empty", null];
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 2) value = ["string", decodeUtf8(r.lengthDelimited())];
    else if (field === 2 && wire === 0) value = ["bool", r.varint() !== 0n];
    else if (field === 3 && wire === 0) value = ["int", BigInt.asIntN(64, r.varint()).toString()];
    else if (field === 4 && wire === 1)
      value = ["double", doubleValue(r.fixed64().getFloat64(0, true))];
    else if (field === 5 && wire === 2)
      value = ["array", repeated(r.lengthDelimited(), protoAnyValue)];
    else if (field === 6 && wire === 2)
      value = ["kvlist", repeated(r.lengthDelimited(), protoKeyValue)];
    else if (field === 7 && wire === 2) value = ["bytes", base64(r.lengthDelimited())];
    else r.skip(wire);
  }
  return value;
}

/** The field-1 elements of an ArrayValue / KeyValueList. */
function repeated<T>(bytes: Uint8Array, decode: (b: Uint8Array) => T): T[] {
  const r = new ProtoReader(bytes, OTLP_PROTO_FORMAT);
  const out: T[] = [];
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 2) out.push(decode(r.lengthDelimited()));
    else r.skip(wire);
  }
  return out;
}
