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

/**
 * Up to 8 bytes at `ptr` as a little-endian word, zero-padded; reads nothing past
 * `ptr + len` (overlapping loads, not byte loops).
 */
@inline export function loadTail(ptr: usize, len: usize): u64 {
  if (len >= 8) return load<u64>(ptr);
  if (len >= 4)
    return <u64>load<u32>(ptr) | (<u64>load<u32>(ptr + len - 4) << ((<u64>len - 4) << 3));
  if (len >= 2)
    return <u64>load<u16>(ptr) | (<u64>load<u8>(ptr + len - 1) << ((<u64>len - 1) << 3));
  return len == 1 ? <u64>load<u8>(ptr) : 0;
}

/** The table's hash: a word at a time (ids do not depend on it, only the probing does). */
@inline function tableHash(ptr: usize, len: i32): u32 {
  let h: u64 = <u64>len * 0x9e3779b97f4a7c15;
  let i: usize = 0;
  const n = <usize>len;
  while (i + 8 <= n) {
    h = (h ^ load<u64>(ptr + i)) * 0xff51afd7ed558ccd;
    h ^= h >> 32;
    i += 8;
  }
  if (i < n) {
    h = (h ^ loadTail(ptr + i, n - i)) * 0xc4ceb9fe1a85ec53;
    h ^= h >> 32;
  }
  return <u32>h | 1; // 0 marks an empty slot
}

/** Whether [a, a+len) and [b, b+len) hold the same bytes (a word at a time, no call). */
@inline export function sameBytes(a: usize, b: usize, len: i32): bool {
  const n = <usize>len;
  let i: usize = 0;
  while (i + 8 <= n) {
    if (load<u64>(a + i) != load<u64>(b + i)) return false;
    i += 8;
  }
  return i == n || loadTail(a + i, n - i) == loadTail(b + i, n - i);
}

/** Id of the string; -1 when the new-strings area cannot take it (the host must drain first). */
@inline export function intern(ptr: usize, len: i32, kind: i32): i32 {
  const h = tableHash(ptr, len) ^ (<u32>kind << 1);
  let slot = h & mask;
  while (true) {
    const at = table + <usize>slot * SLOT_BYTES;
    const sh = load<u32>(at);
    if (sh == 0) break;
    if (sh == h && load<u32>(at, 12) == <u32>len && sameBytes(arena + load<u32>(at, 8), ptr, len))
      return load<i32>(at, 4);
    slot = (slot + 1) & mask;
  }
  return internNew(ptr, len, kind, h, slot);
}

/** A string the table does not hold (its hash `h` and free `slot`): a new id. */
function internNew(ptr: usize, len: i32, kind: i32, h: u32, slot: u32): i32 {
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
