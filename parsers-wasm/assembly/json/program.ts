/**
 * The path program: which values of the document become records and fields. The host
 * compiles it (src/adapters/wasm/json-program.ts) into i32 words:
 *   header  nodeCount, recordTypes, slotsPerRecord, specialCount, keyCount
 *   nodes   recordType, slotRecordType, slot, mode, elemNode, firstKey, keyCount  (7 words each)
 *   keys    childNode, length, hash, blobOffset  (4 words each)
 *   specials recordType, slot, length, blobOffset  (4 words each)
 *   blob    key and special bytes
 * Node 0 is the document's top-level value. A node may point back to an ancestor, which
 * is how recursive trees (`children[*]` of a V8 heap profile node) are described.
 */
import { hashBytes } from "../common/dict";
import { setTypeSlots } from "./records";

export const MODE_NONE: i32 = 0;
/** Strings are interned, numbers parsed, containers reported by kind and element count. */
export const MODE_SCALAR: i32 = 1;
/** The value's canonical JSON text (JSON.stringify of JSON.parse) is captured. */
export const MODE_JSON: i32 = 2;
/** With MODE_SCALAR: an object or array value is captured as JSON text instead. */
export const MODE_JSON_IF_CONTAINER: i32 = 4;

const HEADER_WORDS: i32 = 5;
const NODE_WORDS: i32 = 7;

let base: usize = 0;
let nodes: usize = 0;
let keys: usize = 0;
let specials: usize = 0;
let blob: usize = 0;
let nodeCount: i32 = 0;
let specialCount: i32 = 0;
export let recordTypes: i32 = 0;
export let slotsPerRecord: i32 = 0;

export function programLoad(ptr: usize): void {
  base = ptr;
  nodeCount = load<i32>(ptr);
  recordTypes = load<i32>(ptr, 4);
  slotsPerRecord = load<i32>(ptr, 8);
  specialCount = load<i32>(ptr, 12);
  const keyCount = load<i32>(ptr, 16);
  nodes = ptr + <usize>HEADER_WORDS * 4;
  keys = nodes + <usize>(nodeCount * NODE_WORDS) * 4;
  specials = keys + <usize>keyCount * 16;
  blob = specials + <usize>specialCount * 16;
  loadedNodes = nodeCount;
}

/** Tells the records module how many slots each record type uses (after recordsInit). */
export function declareTypeSlots(): void {
  for (let n = 0; n < loadedNodes; n++) if (word(n, 2) >= 0) setTypeSlots(word(n, 1), word(n, 2) + 1);
}

let loadedNodes: i32 = 0;

@inline function word(node: i32, field: i32): i32 {
  return load<i32>(nodes + <usize>(node * NODE_WORDS + field) * 4);
}

@inline export function nodeRecord(node: i32): i32 { return node < 0 ? -1 : word(node, 0); }
@inline export function nodeSlotRecord(node: i32): i32 { return word(node, 1); }
@inline export function nodeSlot(node: i32): i32 { return node < 0 ? -1 : word(node, 2); }
@inline export function nodeMode(node: i32): i32 { return node < 0 ? 0 : word(node, 3); }
@inline export function nodeElem(node: i32): i32 { return node < 0 ? -1 : word(node, 4); }

/** Child of `node` under key bytes [ptr, ptr+len), or -1. */
export function nodeChild(node: i32, ptr: usize, len: i32): i32 {
  if (node < 0) return -1;
  const count = word(node, 6);
  if (count == 0) return -1;
  const h = hashBytes(ptr, len);
  let key = keys + <usize>word(node, 5) * 16;
  for (let i = 0; i < count; i++, key += 16) {
    if (load<i32>(key, 4) == len && load<u32>(key, 8) == h && memory.compare(blob + load<u32>(key, 12), ptr, len) == 0) {
      return load<i32>(key);
    }
  }
  return -1;
}

/** Whether the string in [ptr, ptr+len) at (recordType, slot) is one the program marks special. */
export function isSpecial(recordType: i32, slot: i32, ptr: usize, len: i32): bool {
  let at = specials;
  for (let i = 0; i < specialCount; i++, at += 16) {
    if (load<i32>(at) == recordType && load<i32>(at, 4) == slot && load<i32>(at, 8) == len && memory.compare(blob + load<u32>(at, 12), ptr, len) == 0) {
      return true;
    }
  }
  return false;
}

export function programBase(): usize { return base; }
