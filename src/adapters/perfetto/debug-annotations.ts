/**
 * TrackEvent debug annotations → one JSON object ({name: value}), the args of a trace
 * event row. Names and string values may be interned per sequence.
 */
import { ProtoReader, decodeUtf8 } from "../wasm/proto-reader.ts";
import type { SequenceState } from "./sequence-state.ts";

export const PERFETTO_FORMAT = "Perfetto trace";
const MAX_NESTING = 32;

/** One annotation → [name, value] (nested dicts and arrays as JSON values, legacy JSON parsed). */
export function annotation(bytes: Uint8Array, state: SequenceState, depth = 0): [string, unknown] {
  const r = new ProtoReader(bytes, PERFETTO_FORMAT);
  let name = "";
  let value: unknown = null;
  let dict: Record<string, unknown> | null = null;
  let array: unknown[] | null = null;
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 0) name = state.annotationNames.get(r.small()) ?? "";
    else if (field === 10 && wire === 2) name = decodeUtf8(r.lengthDelimited());
    else if (field === 2 && wire === 0) value = r.varint() !== 0n;
    else if (field === 3 && wire === 0) value = integer(r, false);
    else if (field === 4 && wire === 0) value = integer(r, true);
    else if (field === 5 && wire === 1) value = r.fixed64().getFloat64(0, true);
    else if (field === 6 && wire === 2) value = decodeUtf8(r.lengthDelimited());
    else if (field === 17 && wire === 0) value = state.stringValues.get(r.small()) ?? null;
    else if (field === 7 && wire === 0) value = `0x${r.varint().toString(16)}`;
    else if (field === 9 && wire === 2) value = legacyJson(decodeUtf8(r.lengthDelimited()));
    else if (field === 11 && wire === 2 && depth < MAX_NESTING) {
      const [k, v] = annotation(r.lengthDelimited(), state, depth + 1);
      (dict ??= {})[k] = v;
    } else if (field === 12 && wire === 2 && depth < MAX_NESTING)
      (array ??= []).push(annotation(r.lengthDelimited(), state, depth + 1)[1]);
    else r.skip(wire);
  }
  return [name, dict ?? array ?? value];
}

/**
 * An uint_value or (`signed`) int_value: a number while exact, else its decimal. A short varint is
 * a small non-negative value either way (a negative int64 takes ten bytes).
 */
function integer(r: ProtoReader, signed: boolean): number | string {
  const short = r.shortVarint();
  if (short >= 0) return short;
  const v = r.varint();
  return safe(signed ? BigInt.asIntN(64, v) : v);
}

function safe(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(v)
    : v.toString();
}

/**
 * The text of an annotation whose value is a legacy_json_value (what `annotation` parses), or null
 * when its value is anything else.
 */
export function legacyJsonText(bytes: Uint8Array): string | null {
  const r = new ProtoReader(bytes, PERFETTO_FORMAT);
  let text: string | null = null;
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 9 && wire === 2) text = decodeUtf8(r.lengthDelimited());
    // A dict entry or array item anywhere is the value, and so is a later value of another kind.
    else if ((field === 11 || field === 12) && wire === 2) return null;
    else {
      if (VALUE_WIRES.get(field) === wire) text = null;
      r.skip(wire);
    }
  }
  return text;
}

/** The wire type of each field `annotation` takes a value from, but 9 (legacy JSON). */
const VALUE_WIRES = new Map([
  [2, 0],
  [3, 0],
  [4, 0],
  [5, 1],
  [6, 2],
  [7, 0],
  [17, 0],
]);

function legacyJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The annotations of one event as args JSON text, or null when it has none. */
export function annotationsJson(
  annotations: readonly Uint8Array[],
  state: SequenceState,
  extra?: Record<string, unknown>,
): string | null {
  if (annotations.length === 0 && !extra) return null;
  const args: Record<string, unknown> = { ...extra };
  for (const bytes of annotations) {
    const [name, value] = annotation(bytes, state, 0);
    args[name] = value;
  }
  return JSON.stringify(args);
}
