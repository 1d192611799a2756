/**
 * The field program of the protobuf scanner (compiled by src/adapters/wasm/proto-program.ts):
 *   header  nodeCount, 0, slotsPerRecord, specialCount, fieldCount
 *   nodes   recordType, slotRecordType, slot, mode, packedKind, firstField, fieldCount (7 words)
 *   fields  fieldNumber, childNode (2 words)
 *   specials recordType, kind (-1: never truncated, -2: announced when it opens)
 * Node 0 is the top-level message (the whole stream).
 */
import { region } from "../common/regions";
import { setTypeSlots } from "../json/records";

export const MODE_NONE: i32 = 0;
/**
 * Length-delimited: a message whose fields the program describes (streamed, never buffered whole).
 */
export const MODE_MESSAGE: i32 = 1;
/** Varint/fixed: the number; length-delimited: a string, interned. */
export const MODE_SCALAR: i32 = 2;
/** Length-delimited: the raw bytes, kept in the text area. */
export const MODE_BYTES: i32 = 3;

/** Element encoding of a packed repeated scalar field (0: not packable). */
export const PACKED_VARINT: i32 = 1;
export const PACKED_FIXED64: i32 = 2;
export const PACKED_FIXED32: i32 = 3;

const NODE_WORDS: i32 = 7;
let nodes: usize = 0;
let fields: usize = 0;
let specials: usize = 0;
let specialCount: i32 = 0;
export let slotsPerRecord: i32 = 0;

/**
 * Field numbers below this are looked up in a table per node (the child node, or -1); the
 * rest by a search of the node's fields. With a search per tag (TrackEvent's node has ~20
 * fields) and per record type's specials, the scan alone of a 40 MB Perfetto trace took
 * 503 ms and of 100 MB of OTLP 360 ms; with the tables, 450 and 300.
 */
const DIRECT_FIELDS: i32 = 128;
let fieldTable: usize = 0;
/** Per record type (below 256): 1 never truncated, 2 announced when it opens (the specials). */
let typeFlags: usize = 0;

/** Loads the program; false when its tables do not fit in memory. */
export function programLoad(ptr: usize): bool {
  const nodeCount = load<i32>(ptr);
  slotsPerRecord = load<i32>(ptr, 8);
  specialCount = load<i32>(ptr, 12);
  const fieldCount = load<i32>(ptr, 16);
  nodes = ptr + 20;
  fields = nodes + <usize>(nodeCount * NODE_WORDS) * 4;
  specials = fields + <usize>fieldCount * 8;
  loadedNodes = nodeCount;
  fieldTable = region(<usize>nodeCount * <usize>DIRECT_FIELDS * 4);
  typeFlags = region(256);
  if (fieldTable == 0 || typeFlags == 0) return false;
  memory.fill(fieldTable, 0xff, <usize>nodeCount * <usize>DIRECT_FIELDS * 4);
  for (let n = 0; n < nodeCount; n++) {
    const count = word(n, 6);
    let at = fields + <usize>word(n, 5) * 8;
    // Backwards, so that the first of two entries for one number wins, as in the search.
    at += <usize>count * 8;
    for (let i = 0; i < count; i++) {
      at -= 8;
      const number = load<i32>(at);
      if (number >= 0 && number < DIRECT_FIELDS)
        store<i32>(fieldTable + (<usize>n * <usize>DIRECT_FIELDS + <usize>number) * 4, load<i32>(at, 4));
    }
  }
  memory.fill(typeFlags, 0, 256);
  let at = specials;
  for (let i = 0; i < specialCount; i++, at += 8) {
    const type = load<i32>(at);
    const kind = load<i32>(at, 4);
    if (type < 0 || type >= 256) continue;
    const flag = kind == -1 ? 1 : kind == -2 ? 2 : 0;
    store<u8>(typeFlags + <usize>type, load<u8>(typeFlags + <usize>type) | <u8>flag);
  }
  return true;
}

/** Tells the records module how many slots each record type uses (after recordsInit). */
export function declareTypeSlots(): void {
  for (let n = 0; n < loadedNodes; n++)
    if (word(n, 2) >= 0) setTypeSlots(word(n, 1), word(n, 2) + 1);
}

let loadedNodes: i32 = 0;

@inline function word(node: i32, field: i32): i32 {
  return load<i32>(nodes + <usize>(node * NODE_WORDS + field) * 4);
}

@inline export function nodeRecord(node: i32): i32 { return node < 0 ? -1 : word(node, 0); }
@inline export function nodeSlotRecord(node: i32): i32 { return word(node, 1); }
@inline export function nodeSlot(node: i32): i32 { return node < 0 ? -1 : word(node, 2); }
@inline export function nodeMode(node: i32): i32 { return node < 0 ? MODE_NONE : word(node, 3); }
@inline export function nodePacked(node: i32): i32 { return node < 0 ? 0 : word(node, 4); }

export function nodeField(node: i32, number: i32): i32 {
  if (node < 0) return -1;
  if (number < DIRECT_FIELDS)
    return load<i32>(fieldTable + (<usize>node * <usize>DIRECT_FIELDS + <usize>number) * 4);
  const count = word(node, 6);
  let at = fields + <usize>word(node, 5) * 8;
  for (let i = 0; i < count; i++, at += 8) if (load<i32>(at) == number) return load<i32>(at, 4);
  return -1;
}

/** Whether record type `recordType` is never truncated (special kind -1). */
@inline export function neverTruncated(recordType: i32): bool {
  return recordType >= 0 && recordType < 256
    ? (load<u8>(typeFlags + <usize>recordType) & 1) != 0
    : recordHas(recordType, -1);
}

/** Whether record type `recordType` is announced when it opens (special kind -2). */
@inline export function announced(recordType: i32): bool {
  return recordType >= 0 && recordType < 256
    ? (load<u8>(typeFlags + <usize>recordType) & 2) != 0
    : recordHas(recordType, -2);
}

export function recordHas(recordType: i32, kind: i32): bool {
  let at = specials;
  for (let i = 0; i < specialCount; i++, at += 8)
    if (load<i32>(at) == recordType && load<i32>(at, 4) == kind) return true;
  return false;
}
