/**
 * Records: the open-record stack and the output batch. A record opens when its node's
 * value begins and is emitted, with all its slots, when that value ends, so a record's
 * fields may come in any key order. Layout of a record (open or emitted):
 *   header  type | flags << 16, selfTag, serial, parentSerial   (4 × i32)
 *   slots   tag, ival, fval (f64)                                (16 bytes each)
 * Text captured for JSON slots lives in the text area; records reference it by
 * offset. After the host drains a batch, texts still referenced by open records are
 * moved to the front, so a long-lived record (a container) survives any number of batches.
 */
import { region } from "../common/regions";

export const TAG_ABSENT: i32 = 0;
export const TAG_STRING: i32 = 1;
export const TAG_NUMBER: i32 = 2;
export const TAG_TRUE: i32 = 3;
export const TAG_FALSE: i32 = 4;
export const TAG_NULL: i32 = 5;
export const TAG_OBJECT: i32 = 6;
export const TAG_ARRAY: i32 = 7;
export const TAG_JSON: i32 = 8;
export const TAG_KIND_MASK: i32 = 15;
/** JSON text the scanner could not canonicalize itself; the host re-serializes it. */
export const TAG_SLOW: i32 = 16;
export const TAG_TRUNCATED: i32 = 32;

export const FLAG_SPECIAL: i32 = 1;
/** An announcement: a record's header emitted when it opens (its slots come when it closes). */
export const FLAG_ANNOUNCE: i32 = 2;

let slots: i32 = 0;
/** Slots each record type actually uses (records are copied only that far); 256 i32 in a region. */
let typeSlots: usize = 0;

export function setTypeSlots(type: i32, count: i32): void {
  if (type < 0 || type >= 256) return;
  const at = typeSlots + <usize>type * 4;
  if (count > load<i32>(at)) store<i32>(at, count);
}

@inline function usedSlots(type: i32): i32 {
  return type >= 0 && type < 256 ? load<i32>(typeSlots + <usize>type * 4) : slots;
}
let stride: usize = 0;
let openArea: usize = 0;
let maxOpen: i32 = 0;
let openCount: i32 = 0;
let nextSerial: i32 = 0;

let outArea: usize = 0;
let outCap: i32 = 0;
let outCount: i32 = 0;

let textArea: usize = 0;
let textCap: usize = 0;
let textUsed: usize = 0;
let truncateAt: i32 = 0;

export function recordsInit(
  slotsPerRecord: i32, maxOpenRecords: i32, outRecords: i32, textBytes: usize,
): bool {
  slots = slotsPerRecord;
  stride = 16 + <usize>slots * 16;
  maxOpen = maxOpenRecords;
  outCap = outRecords;
  textCap = textBytes;
  openArea = region(stride * <usize>maxOpen);
  outArea = region(stride * <usize>outCap);
  textArea = region(textBytes);
  typeSlots = region(256 * 4);
  if (typeSlots != 0) memory.fill(typeSlots, 0, 256 * 4);
  openCount = 0;
  nextSerial = 0;
  outCount = 0;
  textUsed = 0;
  return openArea != 0 && outArea != 0 && textArea != 0 && typeSlots != 0;
}

export function setTruncateAt(bytes: i32): void { truncateAt = bytes; }

@inline function openAt(index: i32): usize { return openArea + <usize>index * stride; }

/** Copies `n` bytes (a multiple of 16; records are 16-byte aligned) a vector at a time. */
@inline function copy16(dst: usize, src: usize, n: usize): void {
  for (let i: usize = 0; i < n; i += 16) v128.store(dst + i, v128.load(src + i));
}

/** Zeroes `n` bytes (a multiple of 16 at a 16-byte aligned address). */
@inline function zero16(dst: usize, n: usize): void {
  const z = i64x2.splat(0);
  for (let i: usize = 0; i < n; i += 16) v128.store(dst + i, z);
}

/**
 * Opens a record of `type` at position `index` in its container (element index, or key
 * ordinal); false when records nest deeper than the stack allows.
 */
export function openRecord(type: i32, index: i32): bool {
  if (openCount >= maxOpen) return false;
  const at = openAt(openCount);
  store<i32>(at, type);
  store<i32>(at, index << 4, 4);
  store<i32>(at, nextSerial++, 8);
  store<i32>(at, openCount > 0 ? load<i32>(openAt(openCount - 1), 8) : -1, 12);
  zero16(at + 16, <usize>usedSlots(type) * 16);
  openCount++;
  return true;
}

/** Index in the open stack of the innermost open record of `type`, or -1. */
@inline export function innermostOfType(type: i32): i32 {
  for (let i = openCount - 1; i >= 0; i--) if ((load<i32>(openAt(i)) & 0xffff) == type) return i;
  return -1;
}

@inline export function setSlot(index: i32, slot: i32, tag: i32, ival: i32, fval: f64): void {
  const at = openAt(index) + 16 + <usize>slot * 16;
  store<i32>(at, tag);
  store<i32>(at, ival, 4);
  store<f64>(at, fval, 8);
}

/** A slot holding 64 raw bits (protobuf varints and fixed values) where others hold a double. */
export function setSlotBits(index: i32, slot: i32, tag: i32, ival: i32, bits: i64): void {
  const at = openAt(index) + 16 + <usize>slot * 16;
  store<i32>(at, tag);
  store<i32>(at, ival, 4);
  store<i64>(at, bits, 8);
}

export function markSpecial(index: i32): void {
  const at = openAt(index);
  store<i32>(at, load<i32>(at) | (FLAG_SPECIAL << 16));
}

/** Emits the innermost open record with its own value's tag and pops it. */
export function closeRecord(selfTag: i32): void {
  const index = openCount - 1;
  const src = openAt(index);
  store<i32>(src, (load<i32>(src, 4) & ~15) | selfTag, 4);
  const special = (load<i32>(src) >> 16) & FLAG_SPECIAL;
  const dst = outArea + <usize>outCount * stride;
  const used = usedSlots(load<i32>(src) & 0xffff);
  copy16(dst, src, 16 + <usize>used * 16);
  // Slots the type never uses read as absent.
  if (used < slots) zero16(dst + 16 + <usize>used * 16, <usize>(slots - used) * 16);
  if (special == 0) {
    for (let s = 0; s < used; s++) {
      const at = dst + 16 + <usize>s * 16;
      const tag = load<i32>(at);
      if ((tag & TAG_KIND_MASK) != TAG_JSON || (tag & TAG_SLOW) != 0) continue;
      const len = load<i32>(at, 4);
      if (len <= truncateAt) continue;
      // Cut on a character boundary: never inside a UTF-8 sequence.
      const start = textArea + <usize>load<f64>(at, 8);
      let cut = truncateAt;
      while (cut > 0 && (load<u8>(start + cut) & 0xc0) == 0x80) cut--;
      store<i32>(at, tag | TAG_TRUNCATED);
      store<i32>(at, cut, 4);
    }
  }
  outCount++;
  openCount--;
}

/** Emits the header of the innermost open record, flagged as an announcement. */
export function announceRecord(): void {
  const dst = outArea + <usize>outCount * stride;
  memory.copy(dst, openAt(openCount - 1), 16);
  store<i32>(dst, load<i32>(dst) | (FLAG_ANNOUNCE << 16));
  outCount++;
}

export function openRecords(): i32 { return openCount; }
export function serialOfOpen(index: i32): i32 { return load<i32>(openAt(index), 8); }

/** Appends text; its offset, or -1 when the text area is full. */
export function textAppend(ptr: usize, len: usize): f64 {
  if (textUsed + len > textCap) return -1;
  // Texts come from the start of the capture buffer (far longer than 16 bytes): a short
  // one is one vector move.
  if (len <= 16 && textUsed + 16 <= textCap) v128.store(textArea + textUsed, v128.load(ptr));
  else memory.copy(textArea + textUsed, ptr, len);
  const at = textUsed;
  textUsed += len;
  return <f64>at;
}

export function batchFull(softRecords: i32, softText: usize): bool {
  // Headroom for the announcements of records opened before the next record closes.
  return outCount >= softRecords || outCount >= outCap - 4096 || textUsed >= softText;
}

export function outPtr(): usize { return outArea; }
export function outRecords(): i32 { return outCount; }
export function outCapacity(): i32 { return outCap; }
export function outStride(): i32 { return <i32>stride; }
export function textPtr(): usize { return textArea; }
export function textBytes(): usize { return textUsed; }

/** After the host consumed a batch: drop emitted records, keep open records' texts. */
export function drained(): void {
  outCount = 0;
  let kept: usize = 0;
  for (let i = 0; i < openCount; i++) {
    const rec = openAt(i);
    const used = usedSlots(load<i32>(rec) & 0xffff);
    for (let s = 0; s < used; s++) {
      const at = rec + 16 + <usize>s * 16;
      if ((load<i32>(at) & TAG_KIND_MASK) != TAG_JSON) continue;
      const len = <usize>load<i32>(at, 4);
      const from = textArea + <usize>load<f64>(at, 8);
      memory.copy(textArea + kept, from, len);
      store<f64>(at, <f64>kept, 8);
      kept += len;
    }
  }
  textUsed = kept;
}
