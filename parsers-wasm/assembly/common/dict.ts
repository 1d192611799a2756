/**
 * String interning. Each distinct byte string gets an id; the first time a string is
 * seen, (id, kind, bytes) is appended to the "new strings" area, which the host drains
 * with every batch, so the host decodes each distinct string once. When the table fills
 * up it is cleared and ids keep counting: the host may then see one string under two
 * ids and maps them to one (memory stays bounded whatever the number of distinct
 * strings in the input).
 */
import { region } from "./regions";

/** Kind of a string's bytes: UTF-8 (possibly invalid), or WTF-8 (holds lone surrogates). */
export const KIND_UTF8: i32 = 0;
export const KIND_WTF8: i32 = 1;

const SLOT_BYTES: usize = 16; // hash u32, id i32, offset u32, length u32
let table: usize = 0;
let mask: u32 = 0;
let used: u32 = 0;
let arena: usize = 0;
let arenaCap: usize = 0;
let arenaUsed: usize = 0;
let nextId: i32 = 0;

let outArea: usize = 0;
let outCap: usize = 0;
let outUsed: usize = 0;
let outCount: i32 = 0;

export function dictInit(slotsLog2: i32, arenaBytes: usize, outBytes: usize): bool {
  const slots: usize = (<usize>1) << slotsLog2;
  table = region(slots * SLOT_BYTES);
  arena = region(arenaBytes);
  outArea = region(outBytes);
  if (table == 0 || arena == 0 || outArea == 0) return false;
  mask = <u32>slots - 1;
  arenaCap = arenaBytes;
  outCap = outBytes;
  nextId = 0;
  dictClear();
  outUsed = 0;
  outCount = 0;
  return true;
}

function dictClear(): void {
  memory.fill(table, 0, (<usize>mask + 1) * SLOT_BYTES);
  used = 0;
  arenaUsed = 0;
}

@inline export function hashBytes(ptr: usize, len: i32): u32 {
  let h: u32 = 2166136261;
  for (let i = 0; i < len; i++) h = (h ^ load<u8>(ptr + i)) * 16777619;
  return h | 1; // 0 marks an empty slot
}

function sameBytes(a: usize, b: usize, len: i32): bool {
  return memory.compare(a, b, len) == 0;
}

/** Id of the string; -1 when the new-strings area cannot take it (the host must drain first). */
export function intern(ptr: usize, len: i32, kind: i32): i32 {
  const h = hashBytes(ptr, len) ^ <u32>kind;
  let slot = h & mask;
  while (true) {
    const at = table + <usize>slot * SLOT_BYTES;
    const sh = load<u32>(at);
    if (sh == 0) break;
    if (sh == h && load<u32>(at, 12) == <u32>len && sameBytes(arena + load<u32>(at, 8), ptr, len)) return load<i32>(at, 4);
    slot = (slot + 1) & mask;
  }
  const entryBytes = (<usize>15 + <usize>len) & ~(<usize>3);
  if (outUsed + entryBytes > outCap) return -1;
  if ((used + 1) * 2 > mask || arenaUsed + <usize>len > arenaCap) {
    dictClear();
    slot = h & mask;
  }
  const id = nextId++;
  // A string longer than the arena is handed out but not remembered.
  if (<usize>len <= arenaCap) {
    const at = table + <usize>slot * SLOT_BYTES;
    memory.copy(arena + arenaUsed, ptr, len);
    store<u32>(at, h);
    store<i32>(at, id, 4);
    store<u32>(at, <u32>arenaUsed, 8);
    store<u32>(at, <u32>len, 12);
    arenaUsed += len;
    used++;
  }
  const out = outArea + outUsed;
  store<i32>(out, id);
  store<i32>(out, kind, 4);
  store<i32>(out, len, 8);
  memory.copy(out + 12, ptr, len);
  outUsed += entryBytes;
  outCount++;
  return id;
}

export function newStringsPtr(): usize { return outArea; }
export function newStringsBytes(): usize { return outUsed; }
export function newStringsCount(): i32 { return outCount; }
export function newStringsDrained(): void { outUsed = 0; outCount = 0; }
export function newStringsFull(soft: usize): bool { return outUsed >= soft; }
