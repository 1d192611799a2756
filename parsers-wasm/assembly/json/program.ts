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
import { loadTail, sameBytes } from "../common/dict";
import { region } from "../common/regions";
import { setTypeSlots } from "./records";

export const MODE_NONE: i32 = 0;
/** Strings are interned, numbers parsed, containers reported by kind and element count. */
export const MODE_SCALAR: i32 = 1;
/** The value's canonical JSON text (JSON.stringify of JSON.parse) is captured. */
export const MODE_JSON: i32 = 2;
/** With MODE_SCALAR: an object or array value is captured as JSON text instead. */
export const MODE_JSON_IF_CONTAINER: i32 = 4;
/**
 * On an array's element node: number elements go to the record type's run of numbers
 * (runs.ts) instead of opening a record each; other elements open their record.
 */
export const MODE_NUMBER_RUN: i32 = 8;

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
  // Where each node's key search starts: after the key matched last, since objects of
  // one kind mostly list their keys in one order.
  keyHints = region(<usize>nodeCount * 4);
  memory.fill(keyHints, 0, <usize>nodeCount * 4);
  // Each key's first 8 bytes as one word, so that matching a key is mostly one compare.
  keyPrefixes = region(<usize>keyCount * 8);
  for (let k = 0; k < keyCount; k++) {
    const key = keys + <usize>k * 16;
    store<u64>(keyPrefixes + <usize>k * 8,
      loadTail(blob + load<u32>(key, 12), <usize>load<i32>(key, 4)));
  }
  // Per record type (< 256): whether it is special as a whole (slot -1), announced
  // (slot -2), and which slots (< 29) have special string values; bit 31: a slot >= 29 does.
  typeSpecials = region(256 * 4);
  memory.fill(typeSpecials, 0, 256 * 4);
  for (let i = 0; i < specialCount; i++) {
    const at = specials + <usize>i * 16;
    const type = load<i32>(at);
    const slot = load<i32>(at, 4);
    if (type < 0 || type >= 256) { anyTypeOutside = true; continue; }
    const bit: u32 = slot == -1 ? SP_WHOLE : slot == -2 ? SP_ANNOUNCE
      : slot >= 0 && slot < 29 ? (<u32>1) << (<u32>slot + 2) : SP_OTHER_SLOTS;
    store<u32>(typeSpecials + <usize>type * 4, load<u32>(typeSpecials + <usize>type * 4) | bit);
  }
}

let keyPrefixes: usize = 0;
let keyHints: usize = 0;
let typeSpecials: usize = 0;
let anyTypeOutside = false;
const SP_WHOLE: u32 = 1;
const SP_ANNOUNCE: u32 = 2;
const SP_OTHER_SLOTS: u32 = 0x80000000;

/** Whether the program may mark records of `type` special by the value of `slot`. */
@inline export function slotMayBeSpecial(type: i32, slot: i32): bool {
  if (<u32>type >= 256) return anyTypeOutside;
  const bits = load<u32>(typeSpecials + <usize>type * 4);
  return slot < 29 ? (bits & ((<u32>1) << (<u32>slot + 2))) != 0 : (bits & SP_OTHER_SLOTS) != 0;
}

/** Whether records of `type` are special as a whole (never truncated). */
@inline export function typeWholeSpecial(type: i32): bool {
  return <u32>type < 256
    ? (load<u32>(typeSpecials + <usize>type * 4) & SP_WHOLE) != 0
    : isSpecial(type, -1, 0, 0);
}

/** Whether records of `type` are announced when they open. */
@inline export function typeAnnounced(type: i32): bool {
  return <u32>type < 256
    ? (load<u32>(typeSpecials + <usize>type * 4) & SP_ANNOUNCE) != 0
    : isSpecial(type, -2, 0, 0);
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
@inline export function nodeMode(node: i32): i32 { return node < 0 ? 0 : word(node, 3); }
@inline export function nodeElem(node: i32): i32 { return node < 0 ? -1 : word(node, 4); }

/** Child of `node` under key bytes [ptr, ptr+len), or -1. */
@inline export function nodeChild(node: i32, ptr: usize, len: i32): i32 {
  if (node < 0) return -1;
  const count = word(node, 6);
  if (count == 0) return -1;
  const first = word(node, 5);
  const prefix = loadTail(ptr, <usize>len);
  const hint = keyHints + <usize>node * 4;
  let i = load<i32>(hint);
  for (let n = 0; n < count; n++) {
    const k = <usize>(first + i);
    const key = keys + k * 16;
    i++;
    if (i == count) i = 0;
    if (load<u64>(keyPrefixes + k * 8) == prefix && load<i32>(key, 4) == len
      && (len <= 8 || sameBytes(blob + load<u32>(key, 12) + 8, ptr + 8, len - 8))) {
      store<i32>(hint, i);
      return load<i32>(key);
    }
  }
  return -1;
}

/** Whether the string in [ptr, ptr+len) at (recordType, slot) is one the program marks special. */
export function isSpecial(recordType: i32, slot: i32, ptr: usize, len: i32): bool {
  let at = specials;
  for (let i = 0; i < specialCount; i++, at += 16) {
    if (load<i32>(at, 8) == len && load<i32>(at) == recordType && load<i32>(at, 4) == slot
      && sameBytes(blob + load<u32>(at, 12), ptr, len)) {
      return true;
    }
  }
  return false;
}

export function programBase(): usize { return base; }
