/**
 * Streaming protobuf wire scanner: a resumable state machine over tags, varints, fixed
 * values and length-delimited fields. Messages the program describes are descended into
 * as their bytes arrive (a 500 MB ResourceSpans never needs to be buffered); values at
 * program nodes open records and fill slots, everything else is skipped by length.
 * Lengths are checked against the enclosing message, so a corrupt length is an error,
 * never a huge allocation.
 */
import { region } from "../common/regions";
import { intern, newStringsFull } from "../common/dict";
import {
  capBytes, captureLen, captureOverflowed, capturePtr, captureStart, captureStop,
} from "../json/capture";
import {
  announceRecord, batchFull, closeRecord, innermostOfType, markSpecial, openRecord, outCapacity,
  outRecords, setSlotBits, textAppend,
} from "../json/records";
import {
  MODE_BYTES, MODE_MESSAGE, MODE_SCALAR, nodeField, nodeMode, nodePacked, nodeRecord, nodeSlot,
  announced, neverTruncated, nodeSlotRecord, PACKED_FIXED32, PACKED_FIXED64, PACKED_VARINT,
} from "./program";

export const TAG_STRING: i32 = 1;
export const TAG_VARINT: i32 = 2;
export const TAG_MESSAGE: i32 = 6;
export const TAG_BYTES: i32 = 8;
export const TAG_FIXED64: i32 = 9;
export const TAG_FIXED32: i32 = 10;

// Run and finish statuses (as the JSON scanner's): need input, a batch is ready, done, failed.
export const ST_NEED_INPUT: i32 = 0;
export const ST_BATCH: i32 = 1;
export const ST_DONE: i32 = 2;
export const ST_ERROR: i32 = 3;

export const ERR_WIRE: i32 = 1;
export const ERR_END: i32 = 2;
export const ERR_DEPTH: i32 = 3;
export const ERR_LENGTH: i32 = 4;
export const ERR_VARINT: i32 = 5;
export const ERR_STRING_LONG: i32 = 7;
export const ERR_CAPTURE_LONG: i32 = 8;
export const ERR_TEXT_FULL: i32 = 9;
export const ERR_STRINGS_FULL: i32 = 13;

const S_TAG: i32 = 0;
const S_VARINT: i32 = 1;
const S_FIXED: i32 = 2;
const S_LEN: i32 = 3;
const S_SKIP: i32 = 4;
const S_STRING: i32 = 5;
const S_BYTES: i32 = 6;
const S_ERROR: i32 = 7;

let maxDepth: i32 = 0;
let frNode: usize = 0; // i32 per frame
let frEnd: usize = 0; // u64 per frame
let frFlags: usize = 0; // i32 per frame: 1 opened a record, 2 packed
let frStart: usize = 0; // u64 per frame
let depth: i32 = 0;

let state: i32 = S_TAG;
let acc: u64 = 0;
let shift: u32 = 0;
let fixedNeed: i32 = 0;
let fixedGot: i32 = 0;
let remaining: u64 = 0;
let fieldNode: i32 = -1;
let wire: i32 = 0;
let lenValue: u64 = 0;

let scratch: usize = 0;
let scratchCap: usize = 0;
let scratchLen: usize = 0;

let base: u64 = 0;
let inStart: usize = 0;
let inEnd: usize = 0;
let pos: usize = 0;
let paused: bool = false;
let errCode: i32 = 0;
let softRecords: i32 = 0;
let softText: usize = 0;
let rootOpened: bool = false;

export function scannerInit(
  depthLimit: i32, stringBytes: usize, recordsSoft: i32, textSoft: usize,
): bool {
  maxDepth = depthLimit;
  frNode = region(<usize>(depthLimit + 1) * 4);
  frEnd = region(<usize>(depthLimit + 1) * 8);
  frStart = region(<usize>(depthLimit + 1) * 8);
  frFlags = region(<usize>(depthLimit + 1) * 4);
  scratch = region(stringBytes);
  scratchCap = stringBytes;
  softRecords = recordsSoft;
  softText = textSoft;
  if (frFlags == 0 || scratch == 0) return false;
  scannerRestart();
  return true;
}

/**
 * Back to the start of a new top-level message, keeping the buffers and the string
 * dictionary (ids stay valid): one instance scans many independent payloads, such as
 * Perfetto's compressed packet groups, without a new linear memory each.
 */
export function scannerRestart(): void {
  depth = 0;
  state = S_TAG;
  acc = 0;
  shift = 0;
  base = 0;
  inStart = 0;
  inEnd = 0;
  pos = 0;
  paused = false;
  errCode = 0;
  rootOpened = false;
  // The stream itself is the top-level message (frame 0, no end).
  store<i32>(frNode, 0);
  store<u64>(frEnd, u64.MAX_VALUE);
  store<u64>(frStart, 0);
  store<i32>(frFlags, 0);
}

export function scannerError(): i32 { return errCode; }
export function scannerErrorOffset(): f64 { return <f64>(base + <u64>(pos - inStart)); }

function fail(code: i32): i32 { errCode = code; state = S_ERROR; return ST_ERROR; }

export function scannerFeed(ptr: usize, len: usize): void {
  base += <u64>(pos - inStart);
  inStart = ptr;
  inEnd = ptr + len;
  pos = ptr;
}

@inline function absAt(p: usize): u64 { return base + <u64>(p - inStart); }

function openFor(node: i32): i32 {
  const type = nodeRecord(node);
  if (type < 0) return 0;
  if (!openRecord(type, 0)) return -1;
  if (neverTruncated(type)) markSpecial(innermostOfType(type));
  if (announced(type)) {
    if (outRecords() >= outCapacity()) return -1;
    announceRecord();
  }
  return 1;
}

/** A complete scalar (or string/bytes) value at `node`. */
function value(node: i32, tag: i32, ival: i32, bits: i64): i32 {
  const opened = openFor(node);
  if (opened < 0) return ERR_DEPTH;
  const slot = nodeSlot(node);
  if (slot >= 0) {
    const rec = innermostOfType(nodeSlotRecord(node));
    if (rec >= 0) setSlotBits(rec, slot, tag, ival, bits);
  }
  if (opened == 1) {
    closeRecord(tag);
    if (batchFull(softRecords, softText) || newStringsFull(softText)) paused = true;
  }
  return 0;
}

function pushFrame(node: i32, end: u64, flags: i32, start: u64): i32 {
  if (depth >= maxDepth) return ERR_DEPTH;
  depth++;
  store<i32>(frNode + <usize>depth * 4, node);
  store<u64>(frEnd + <usize>depth * 8, end);
  store<u64>(frStart + <usize>depth * 8, start);
  store<i32>(frFlags + <usize>depth * 4, flags);
  return 0;
}

/** Closes every frame that ends at `at`: sets message slots, closes message records. */
function popEnded(at: u64): void {
  while (depth > 0 && load<u64>(frEnd + <usize>depth * 8) == at) {
    const node = load<i32>(frNode + <usize>depth * 4);
    const flags = load<i32>(frFlags + <usize>depth * 4);
    const length = <i32>(at - load<u64>(frStart + <usize>depth * 8));
    depth--;
    if ((flags & 2) != 0) continue; // packed run: its elements were the values
    const slot = nodeSlot(node);
    if (slot >= 0) {
      const rec = innermostOfType(nodeSlotRecord(node));
      if (rec >= 0) setSlotBits(rec, slot, TAG_MESSAGE, length, 0);
    }
    if ((flags & 1) != 0) {
      closeRecord(TAG_MESSAGE);
      if (batchFull(softRecords, softText) || newStringsFull(softText)) paused = true;
    }
  }
}

@inline function topNode(): i32 { return load<i32>(frNode + <usize>depth * 4); }
@inline function topPacked(): bool {
  return depth > 0 && (load<i32>(frFlags + <usize>depth * 4) & 2) != 0;
}

/** After a complete field: close ended frames, expect the next tag (or packed element). */
function fieldDone(p: usize): void {
  popEnded(absAt(p));
  acc = 0;
  shift = 0;
  if (topPacked()) {
    fieldNode = topNode();
    const kind = nodePacked(fieldNode);
    if (kind == PACKED_VARINT) state = S_VARINT;
    else { state = S_FIXED; fixedNeed = kind == PACKED_FIXED64 ? 8 : 4; fixedGot = 0; }
  } else state = S_TAG;
}

function lengthKnown(p: usize): i32 {
  const start = absAt(p);
  const end = start + lenValue;
  if (lenValue > load<u64>(frEnd + <usize>depth * 8) - start) return ERR_LENGTH;
  const node = fieldNode;
  const mode = nodeMode(node);
  if (mode == MODE_MESSAGE) {
    const opened = openFor(node);
    if (opened < 0) return ERR_DEPTH;
    const e = pushFrame(node, end, opened == 1 ? 1 : 0, start);
    if (e != 0) return e;
    fieldDone(p);
    return 0;
  }
  if (mode == MODE_SCALAR && nodePacked(node) != 0) {
    const e = pushFrame(node, end, 2, start);
    if (e != 0) return e;
    fieldDone(p);
    return 0;
  }
  remaining = lenValue;
  scratchLen = 0;
  if (mode == MODE_SCALAR) {
    if (lenValue > <u64>scratchCap) return ERR_STRING_LONG;
    state = S_STRING;
  } else if (mode == MODE_BYTES) {
    captureStart();
    state = S_BYTES;
  } else state = S_SKIP;
  if (remaining == 0) return finishLengthValue(p);
  return 0;
}

function finishLengthValue(p: usize): i32 {
  let e = 0;
  if (state == S_STRING) {
    const id = intern(scratch, <i32>scratchLen, 0);
    if (id < 0) return ERR_STRINGS_FULL;
    e = value(fieldNode, TAG_STRING, id, 0);
  } else if (state == S_BYTES) {
    captureStop();
    if (captureOverflowed()) return ERR_CAPTURE_LONG;
    const at = textAppend(capturePtr(), captureLen());
    if (at < 0) return ERR_TEXT_FULL;
    // The offset is stored as a double, like JSON text offsets, so the shared records code can move
    // it.
    e = value(fieldNode, TAG_BYTES, <i32>captureLen(), reinterpret<i64>(at));
  }
  if (e != 0) return e;
  fieldDone(p);
  return 0;
}

/** Bytes from which a field is read whole: a tag and a value varint, each of up to 10 bytes. */
const FAST_FIELD_BYTES: usize = 20;
/** Bytes a varint read by fastVarint took (0: not a well-formed varint of at most 10 bytes). */
let fastLength: usize = 0;

/** The varint at `p` (at least 10 bytes readable there); sets fastLength. */
@inline function fastVarint(p: usize): u64 {
  let b = <u64>load<u8>(p);
  if (b < 0x80) { fastLength = 1; return b; }
  let v = b & 0x7f;
  for (let i: usize = 1; i < 10; i++) {
    b = <u64>load<u8>(p + i);
    v |= (b & 0x7f) << (<u64>(7 * i));
    if (b < 0x80) {
      // The 10th byte holds bit 63 only; more is the state machine's overflow error.
      fastLength = i == 9 && b > 1 ? 0 : i + 1;
      return v;
    }
  }
  fastLength = 0;
  return 0;
}

/**
 * Reads the field at `p` (in S_TAG, FAST_FIELD_BYTES readable) as the state machine would:
 * where it ends; 0 when the state machine must take it (an unusual or malformed tag or
 * varint, left for it to read and report exactly); minus the error offset when it failed.
 */
function fastField(p: usize): isize {
  const tag = fastVarint(p);
  const tagLength = fastLength;
  if (tagLength == 0 || tag >> 3 == 0 || tag >> 32 != 0) return 0;
  const w = <i32>(tag & 7);
  let at = p + tagLength;
  const node = nodeField(topNode(), <i32>(tag >> 3));
  if (w == 0 || w == 2) {
    const v = fastVarint(at);
    if (fastLength == 0) return 0;
    at += fastLength;
    fieldNode = node;
    wire = w;
    if (w == 2) {
      lenValue = v;
      const e = lengthKnown(at);
      return e != 0 ? failedAt(at, e) : <isize>at;
    }
    const e = nodeMode(node) == MODE_SCALAR ? value(node, TAG_VARINT, 0, <i64>v) : 0;
    if (e != 0) return failedAt(at, e);
  } else if (w == 1 || w == 5) {
    const v = w == 1 ? load<u64>(at) : <u64>load<u32>(at);
    at += w == 1 ? 8 : 4;
    fieldNode = node;
    wire = w;
    const e = nodeMode(node) == MODE_SCALAR
      ? value(node, w == 1 ? TAG_FIXED64 : TAG_FIXED32, 0, <i64>v)
      : 0;
    if (e != 0) return failedAt(at, e);
  } else return 0;
  fieldDone(at);
  return <isize>at;
}

@inline function failedAt(p: usize, code: i32): isize {
  errCode = code;
  return -<isize>p;
}

/**
 * Scans the fed bytes until they run out, a batch fills up, or an error. 0 need input, 1 batch, 3
 * error.
 */
export function scannerRun(): i32 {
  if (!rootOpened) {
    rootOpened = true;
    if (openFor(0) < 0) return fail(ERR_DEPTH);
    store<i32>(frFlags, nodeRecord(0) >= 0 ? 1 : 0);
  }
  paused = false;
  let p = pos;
  const end = inEnd;
  while (p < end && !paused) {
    // A whole field at hand: its tag and value read straight from the bytes, not byte by byte
    // through the state machine below, which takes fields across chunk ends (the scan alone of
    // a 40 MB Perfetto trace, ~11 bytes a field: 450 → 410 ms; 100 MB of OTLP: 300 → 267 ms).
    // Not inside a tag the state machine has begun: `shift` counts its bits so far.
    if (state == S_TAG && shift == 0 && end - p >= FAST_FIELD_BYTES) {
      const next = fastField(p);
      if (next > 0) { p = next; continue; }
      if (next < 0) { pos = <usize>(-next); return fail(errCode); }
    }
    switch (state) {
      case S_TAG:
      case S_LEN:
      case S_VARINT: {
        const b = <u64>load<u8>(p++);
        if (shift >= 64 || (shift == 63 && (b & 0x7e) != 0)) { pos = p; return fail(ERR_VARINT); }
        acc |= (b & 0x7f) << shift;
        shift += 7;
        if ((b & 0x80) != 0) continue;
        const v = acc;
        acc = 0;
        shift = 0;
        if (state == S_TAG) {
          const number = <i32>(v >> 3);
          wire = <i32>(v & 7);
          if (number == 0 || v >> 32 != 0) { pos = p; return fail(ERR_WIRE); }
          fieldNode = nodeField(topNode(), number);
          if (wire == 0) state = S_VARINT;
          else if (wire == 1 || wire == 5) {
            state = S_FIXED; fixedNeed = wire == 1 ? 8 : 4; fixedGot = 0;
          }
          else if (wire == 2) state = S_LEN;
          else { pos = p; return fail(ERR_WIRE); }
        } else if (state == S_LEN) {
          lenValue = v;
          const e = lengthKnown(p);
          if (e != 0) { pos = p; return fail(e); }
        } else {
          const e =
            nodeMode(fieldNode) == MODE_SCALAR ? value(fieldNode, TAG_VARINT, 0, <i64>v) : 0;
          if (e != 0) { pos = p; return fail(e); }
          fieldDone(p);
        }
        continue;
      }
      case S_FIXED: {
        acc |= (<u64>load<u8>(p++)) << (<u64>(8 * fixedGot));
        if (++fixedGot < fixedNeed) continue;
        const v = acc;
        const e = nodeMode(fieldNode) == MODE_SCALAR
          ? value(fieldNode, fixedNeed == 8 ? TAG_FIXED64 : TAG_FIXED32, 0, <i64>v)
          : 0;
        if (e != 0) { pos = p; return fail(e); }
        fieldDone(p);
        continue;
      }
      case S_SKIP:
      case S_STRING:
      case S_BYTES: {
        const avail = <u64>(end - p);
        const n = <usize>(remaining < avail ? remaining : avail);
        if (state == S_STRING) { memory.copy(scratch + scratchLen, p, n); scratchLen += n; }
        else if (state == S_BYTES) capBytes(p, n);
        p += n;
        remaining -= <u64>n;
        if (remaining == 0) {
          const e = finishLengthValue(p);
          if (e != 0) { pos = p; return fail(e); }
        }
        continue;
      }
      default:
        pos = p;
        return fail(ERR_WIRE);
    }
  }
  pos = p;
  return paused ? ST_BATCH : ST_NEED_INPUT;
}

/** End of input: complete only between top-level fields; closes the top-level record. */
export function scannerFinish(): i32 {
  if (state == S_ERROR) return ST_ERROR;
  if (state != S_TAG || shift != 0 || depth != 0) return fail(ERR_END);
  if (rootOpened && nodeRecord(0) >= 0) closeRecord(TAG_MESSAGE);
  return ST_DONE;
}
