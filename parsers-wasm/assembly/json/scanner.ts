/**
 * The streaming JSON scanner: a byte-level state machine with an explicit container
 * stack, resumable at any byte, strict like JSON.parse (it rejects what JSON.parse
 * rejects). Values at program nodes open records and fill slots (see program.ts and
 * records.ts); everything else is validated and skipped without being kept.
 */
import { region } from "../common/regions";
import { intern, KIND_UTF8, newStringsFull } from "../common/dict";
import {
  capByte, capRun, captureIsSlow, captureLen, captureMarkSlow, captureOverflowed, capturePtr,
  captureStart, captureStop, capturing,
} from "./capture";
import {
  numberBegin, numberByte, numberCanonical, numberLen, numberPtr, numberScan, numberScannedValue,
  numberTooLong, numberValid, numberValue,
} from "./numtok";
import {
  isSpecial, MODE_JSON, MODE_JSON_IF_CONTAINER, MODE_NUMBER_RUN, MODE_SCALAR, nodeChild, nodeElem,
  nodeMode, nodeRecord, nodeSlot, nodeSlotRecord, slotMayBeSpecial, typeAnnounced,
  typeWholeSpecial,
} from "./program";
import {
  announceRecord, batchFull, closeRecord, innermostOfType, markSpecial, openRecord, outCapacity,
  outRecords, setSlot, textAppend, TAG_ARRAY, TAG_FALSE, TAG_JSON, TAG_NULL, TAG_NUMBER, TAG_OBJECT,
  TAG_SLOW, TAG_STRING, TAG_TRUE,
} from "./records";
import { runAppend, runsFull } from "./runs";
import {
  scanPlain, stringBegin, stringCapacity, stringDone, stringError, stringKind, stringLen,
  stringOverflowed, stringPtr, stringScan,
} from "./strtok";

export const ST_NEED_INPUT: i32 = 0;
export const ST_BATCH: i32 = 1;
export const ST_DONE: i32 = 2;
export const ST_ERROR: i32 = 3;
/** Added to ST_DONE by `finish` when it closed a cut-off top-level array. */
export const ST_REPAIRED: i32 = 16;

export const ERR_UNEXPECTED: i32 = 1;
export const ERR_END: i32 = 2;
export const ERR_DEPTH: i32 = 3;
export const ERR_CONTROL: i32 = 4;
export const ERR_ESCAPE: i32 = 5;
export const ERR_NUMBER_LONG: i32 = 6;
export const ERR_STRING_LONG: i32 = 7;
export const ERR_CAPTURE_LONG: i32 = 8;
export const ERR_TEXT_FULL: i32 = 9;
export const ERR_EMPTY: i32 = 11;
export const ERR_RECORDS_DEEP: i32 = 12;
export const ERR_STRINGS_FULL: i32 = 13;

const S_VALUE: i32 = 0;
const S_ARR_FIRST: i32 = 1;
const S_OBJ_FIRST: i32 = 2;
const S_OBJ_KEY: i32 = 3;
const S_COLON: i32 = 4;
const S_AFTER_VALUE: i32 = 5;
const S_STRING: i32 = 6;
const S_NUMBER: i32 = 7;
const S_LITERAL: i32 = 8;
const S_DONE: i32 = 9;
const S_ERROR: i32 = 10;

const KIND_ARRAY: u8 = 1;
const KIND_OBJECT: u8 = 2;
const LV_RECORD: i32 = 1;
const LV_CAPTURE: i32 = 2;
/** A number element of a MODE_NUMBER_RUN array: no record opens; it goes to its run (runs.ts). */
const LV_RUN: i32 = 4;

let maxDepth: i32 = 0;
let lvKind: usize = 0; // u8 per level
let lvNode: usize = 0; // i32 per level
let lvCount: usize = 0; // i32 per level
let lvFlags: usize = 0; // i32 per level
let depth: i32 = 0;

let state: i32 = S_VALUE;
let valueNode: i32 = 0;
let stringIsKey: bool = false;
let tokenFlags: i32 = 0; // LV_* for the scalar token in progress
let literal: usize = 0; // the literal being matched ("true"/"false"/"null" bytes)
let literalPos: i32 = 0;
let literalLen: i32 = 0;
let literalTag: i32 = 0;
let anyValue: bool = false;
let lastClosedObject: bool = false; // the last value completed at depth 1 was an object
let softRecords: i32 = 0;
let softText: usize = 0;
let paused: bool = false;

let errCode: i32 = 0;
let consumedBase: f64 = 0;
let inStart: usize = 0;
let inEnd: usize = 0;
let pos: usize = 0;

const TRUE_BYTES: StaticArray<u8> = [0x74, 0x72, 0x75, 0x65];
const FALSE_BYTES: StaticArray<u8> = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL_BYTES: StaticArray<u8> = [0x6e, 0x75, 0x6c, 0x6c];

export function scannerInit(depthLimit: i32, recordsSoft: i32, textSoft: usize): bool {
  maxDepth = depthLimit;
  lvKind = region(<usize>depthLimit + 1);
  lvNode = region((<usize>depthLimit + 1) * 4);
  lvCount = region((<usize>depthLimit + 1) * 4);
  lvFlags = region((<usize>depthLimit + 1) * 4);
  softRecords = recordsSoft;
  softText = textSoft;
  depth = 0;
  state = S_VALUE;
  valueNode = 0;
  anyValue = false;
  errCode = 0;
  // init may run again on the same instance (a new document on the same memory): nothing of the
  // last one may remain.
  consumedBase = 0;
  inStart = 0;
  inEnd = 0;
  pos = 0;
  stringIsKey = false;
  tokenFlags = 0;
  lastClosedObject = false;
  paused = false;
  return lvFlags != 0;
}

let valueSequence: bool = false;

/**
 * Accept a sequence of top-level values separated by whitespace (JSON Lines, as the
 * OpenTelemetry Collector's file exporter writes): each opens the root record anew.
 */
export function scannerAllowSequence(on: bool): void { valueSequence = on; }

export function scannerError(): i32 { return errCode; }
export function scannerErrorOffset(): f64 { return consumedBase + <f64>(pos - inStart); }
export function scannerDepth(): i32 { return depth; }

/** scannerBetweenElements(): not between two elements of an array. */
export const BETWEEN_NONE: i32 = 0;
/** scannerBetweenElements(): right after an array's `[`, before its first element. */
export const BETWEEN_FIRST: i32 = 1;
/** scannerBetweenElements(): right after one of an array's elements, before `,` or `]`. */
export const BETWEEN_AFTER: i32 = 2;

/**
 * Whether all input so far ended between two elements of the innermost container, an
 * array (outside any captured text). With scannerContainerNode, this is what proves a
 * cut: the host scans the pieces of a large array in parallel and checks that each piece
 * ended exactly after one of that array's elements.
 */
export function scannerBetweenElements(): i32 {
  if (depth == 0 || capturing() || paused || load<u8>(lvKind + <usize>(depth - 1)) != KIND_ARRAY)
    return BETWEEN_NONE;
  if (state == S_ARR_FIRST) return BETWEEN_FIRST;
  return state == S_AFTER_VALUE ? BETWEEN_AFTER : BETWEEN_NONE;
}

/** The program node of the innermost container (-1 at the top level). */
export function scannerContainerNode(): i32 {
  return depth == 0 ? -1 : load<i32>(lvNode + <usize>(depth - 1) * 4);
}

function fail(code: i32): i32 {
  errCode = code;
  state = S_ERROR;
  return ST_ERROR;
}

/**
 * A value starts at `valueNode` (`b` its first byte): open its record, start its capture. Its
 * LV_* flags, or -error.
 */
@inline function beginValue(isContainer: bool, b: i32): i32 {
  const node = valueNode;
  // Most values open no record and start no capture.
  if (node < 0 || (nodeRecord(node) < 0
    && (nodeMode(node) & (isContainer ? MODE_JSON | MODE_JSON_IF_CONTAINER : MODE_JSON)) == 0)) {
    anyValue = true;
    return 0;
  }
  return beginValueSlow(node, isContainer, b);
}

function beginValueSlow(node: i32, isContainer: bool, b: i32): i32 {
  let flags = 0;
  if (nodeRecord(node) >= 0) {
    const type = nodeRecord(node);
    if ((nodeMode(node) & MODE_NUMBER_RUN) != 0) {
      // A number element of a number run opens no record: it goes to its run when it ends.
      if (b == 0x2d || <u32>(b - 0x30) < 10) {
        anyValue = true;
        return LV_RUN;
      }
      // Any other element's record opens as usual, and a NaN keeps its place in the run.
      if (!toRun(type, NaN)) return -ERR_RECORDS_DEEP;
    }
    const index = depth > 0 ? load<i32>(lvCount + <usize>(depth - 1) * 4) - 1 : 0;
    if (!openRecord(type, index)) return -ERR_RECORDS_DEEP;
    // Records the program marks special as a whole (slot -1) are never truncated;
    // slot -2 asks for an announcement when the record opens.
    if (typeWholeSpecial(type)) markSpecial(innermostOfType(type));
    if (typeAnnounced(type)) {
      if (outRecords() >= outCapacity()) return -ERR_RECORDS_DEEP;
      announceRecord();
    }
    flags |= LV_RECORD;
  }
  const mode = nodeMode(node);
  if (!capturing()
    && ((mode & MODE_JSON) != 0 || (isContainer && (mode & MODE_JSON_IF_CONTAINER) != 0))) {
    captureStart();
    flags |= LV_CAPTURE;
  }
  anyValue = true;
  return flags;
}

/** Appends to the run of `type` (false: no room), pausing for the host once the runs fill up. */
function toRun(type: i32, value: f64): bool {
  if (!runAppend(type, value)) return false;
  if (runsFull()) paused = true;
  return true;
}

/** A value at `node` ended: store it in its slot, close its record. 0, or an error code. */
@inline function endValue(node: i32, flags: i32, tag: i32, ival: i32, fval: f64): i32 {
  if (flags != 0) return endValueSlow(node, flags, tag, ival, fval);
  // Neither a record nor a capture ends here: at most a scalar fills its slot.
  if (node >= 0) {
    const slot = nodeSlot(node);
    if (slot >= 0 && (nodeMode(node) & MODE_SCALAR) != 0) {
      const rec = innermostOfType(nodeSlotRecord(node));
      if (rec >= 0) setSlot(rec, slot, tag, ival, fval);
    }
  }
  if (depth == 1) lastClosedObject = tag == TAG_OBJECT;
  return 0;
}

function endValueSlow(node: i32, flags: i32, tag: i32, ival: i32, fval: f64): i32 {
  if (flags == LV_RUN) {
    if (!toRun(nodeRecord(node), fval)) return ERR_RECORDS_DEEP;
    if (depth == 1) lastClosedObject = false;
    return 0;
  }
  let t = tag;
  let iv = ival;
  let fv = fval;
  if ((flags & LV_CAPTURE) != 0) {
    captureStop();
    if (captureOverflowed()) return ERR_CAPTURE_LONG;
    const at = textAppend(capturePtr(), captureLen());
    if (at < 0) return ERR_TEXT_FULL;
    t = TAG_JSON | (captureIsSlow() ? TAG_SLOW : 0);
    iv = <i32>captureLen();
    fv = at;
  }
  const slot = nodeSlot(node);
  if (slot >= 0) {
    const rec = innermostOfType(nodeSlotRecord(node));
    if (rec >= 0) {
      const mode = nodeMode(node);
      if ((flags & LV_CAPTURE) != 0 || (mode & MODE_SCALAR) != 0) setSlot(rec, slot, t, iv, fv);
    }
  }
  if ((flags & LV_RECORD) != 0) {
    closeRecord(tag);
    if (batchFull(softRecords, softText) || newStringsFull(softText)) paused = true;
  }
  if (depth == 1) lastClosedObject = tag == TAG_OBJECT;
  return 0;
}

/** After a value: what the enclosing container expects next. */
@inline function afterValue(): void {
  state = depth == 0 ? S_DONE : S_AFTER_VALUE;
}

export function scannerFeed(ptr: usize, len: usize): void {
  consumedBase += <f64>(pos - inStart);
  inStart = ptr;
  inEnd = ptr + len;
  pos = ptr;
}

function startLiteral(bytes: StaticArray<u8>, tag: i32): void {
  literal = changetype<usize>(bytes);
  literalLen = bytes.length;
  literalPos = 0;
  literalTag = tag;
  state = S_LITERAL;
}

function finishNumber(): i32 {
  if (!numberValid()) return ERR_UNEXPECTED;
  if (numberTooLong()) return ERR_NUMBER_LONG;
  const value = numberValue();
  if (capturing()) {
    capRun(numberPtr(), numberLen());
    if (!numberCanonical()) captureMarkSlow();
  }
  const e = endValue(valueNode, tokenFlags, TAG_NUMBER, numberCanonical() ? 1 : 0, value);
  afterValue();
  return e;
}

function finishString(): i32 {
  const ptr = stringPtr();
  const len = stringLen();
  if (stringIsKey) {
    const parent = load<i32>(lvNode + <usize>(depth - 1) * 4);
    valueNode = stringOverflowed() ? -1 : nodeChild(parent, ptr, len);
    // JavaScript orders integer-like keys first, so such objects are re-serialized by the host.
    if (capturing() && len > 0 && len <= 10 && isIndexKey(ptr, len)) captureMarkSlow();
    if (capturing()) capByte(0x3a);
    state = S_COLON;
    return 0;
  }
  const node = valueNode;
  let id = -1;
  if ((nodeMode(node) & MODE_SCALAR) != 0 && nodeSlot(node) >= 0) {
    if (stringOverflowed()) return ERR_STRING_LONG;
    id = intern(ptr, len, stringKind());
    if (id < 0) return ERR_STRINGS_FULL;
    checkSpecialString(node, ptr, len);
  }
  const e = endValue(node, tokenFlags, TAG_STRING, id, 0);
  afterValue();
  return e;
}

/** A string value at `node` that the program may mark special: mark its record. */
@inline function checkSpecialString(node: i32, ptr: usize, len: i32): void {
  const type = nodeSlotRecord(node);
  const slot = nodeSlot(node);
  if (slotMayBeSpecial(type, slot) && isSpecial(type, slot, ptr, len)) {
    const rec = innermostOfType(type);
    if (rec >= 0) markSpecial(rec);
  }
}

/**
 * A string value whose bytes [ptr, ptr+len) lie whole in the input and need no decoding
 * (no escape; no byte >= 0x80 while capturing): what finishString does for it, without
 * the copy into the scratch. 0, or an error code.
 */
function plainStringValue(flags: i32, ptr: usize, len: i32): i32 {
  const node = valueNode;
  if (capturing()) {
    capByte(0x22);
    capRun(ptr, <usize>len);
    capByte(0x22);
  }
  let id = -1;
  if ((nodeMode(node) & MODE_SCALAR) != 0 && nodeSlot(node) >= 0) {
    if (<usize>len > stringCapacity()) return ERR_STRING_LONG;
    id = intern(ptr, len, KIND_UTF8);
    if (id < 0) return ERR_STRINGS_FULL;
    checkSpecialString(node, ptr, len);
  }
  const e = endValue(node, flags, TAG_STRING, id, 0);
  afterValue();
  return e;
}

/** A key whose bytes lie whole in the input and need no decoding: what finishString does for it. */
@inline function plainKey(ptr: usize, len: i32): void {
  valueNode = nodeChild(load<i32>(lvNode + <usize>(depth - 1) * 4), ptr, len);
  if (capturing()) {
    capByte(0x22);
    capRun(ptr, <usize>len);
    capByte(0x22);
    if (len > 0 && len <= 10 && isIndexKey(ptr, len)) captureMarkSlow();
    capByte(0x3a);
  }
  state = S_COLON;
}

/** A number token [p, q) whole in the input: what finishNumber does for it. */
@inline function plainNumber(flags: i32, p: usize, q: usize): i32 {
  const value = numberScannedValue(p, q);
  const canonical = numberCanonical();
  if (capturing()) {
    capRun(p, q - p);
    if (!canonical) captureMarkSlow();
  }
  const e = endValue(valueNode, flags, TAG_NUMBER, canonical ? 1 : 0, value);
  afterValue();
  return e;
}

function isIndexKey(ptr: usize, len: i32): bool {
  const first = load<u8>(ptr);
  if (first == 0x30) return len == 1;
  for (let i = 0; i < len; i++) {
    const b = load<u8>(ptr + i);
    if (b < 0x30 || b > 0x39) return false;
  }
  return true;
}

function pushContainer(kind: u8, flags: i32): i32 {
  if (depth >= maxDepth) return ERR_DEPTH;
  store<u8>(lvKind + <usize>depth, kind);
  store<i32>(lvNode + <usize>depth * 4, valueNode);
  store<i32>(lvCount + <usize>depth * 4, 0);
  store<i32>(lvFlags + <usize>depth * 4, flags);
  depth++;
  if (capturing()) capByte(kind == KIND_ARRAY ? 0x5b : 0x7b);
  return 0;
}

function popContainer(closing: i32): i32 {
  depth--;
  if (capturing()) capByte(closing);
  const node = load<i32>(lvNode + <usize>depth * 4);
  const flags = load<i32>(lvFlags + <usize>depth * 4);
  const count = load<i32>(lvCount + <usize>depth * 4);
  const tag = load<u8>(lvKind + <usize>depth) == KIND_ARRAY ? TAG_ARRAY : TAG_OBJECT;
  const e = endValue(node, flags, tag, count, 0);
  afterValue();
  return e;
}

@inline function countElement(): void {
  if (depth > 0) {
    const at = lvCount + <usize>(depth - 1) * 4;
    store<i32>(at, load<i32>(at) + 1);
  }
}

/** A comma after a value in a container (state S_AFTER_VALUE). */
@inline function comma(): void {
  if (capturing()) capByte(0x2c);
  if (load<u8>(lvKind + <usize>(depth - 1)) == KIND_ARRAY) {
    valueNode = nodeElem(load<i32>(lvNode + <usize>(depth - 1) * 4));
    state = S_VALUE;
  } else state = S_OBJ_KEY;
}

/**
 * Set by numberRun when a run had no room left (the general path's ERR_RECORDS_DEEP); it then
 * returns the position after the number that found none.
 */
let runFailed = false;

/**
 * Number-run elements taken in one loop: a CPU profile's samples and time deltas are
 * millions of short integers, and each took the general path's every step (count, open,
 * scan, end, run append, comma, state dispatch). From the first byte of an element that
 * beginValue opened as LV_RUN (counted already, not captured), this takes plain integers
 * (at most 15 digits, so exact doubles; no fraction or exponent) as long as each is followed
 * at once by `,` and the next one begins with `-` or a digit. It stops where it cannot take an
 * element, leaving the scanner as the general path would be there: after a value
 * (S_AFTER_VALUE), or after a comma (S_VALUE) before an element not yet counted, which the
 * general path then scans, errors included. Returns the position reached: `p` itself when not
 * even the first element was taken.
 */
function numberRun(p: usize, end: usize): usize {
  const type = nodeRecord(valueNode);
  const countAt = lvCount + <usize>(depth - 1) * 4;
  let reached = p;
  let at = p;
  let first = true;
  runFailed = false;
  for (;;) {
    // A plain integer [at, q) with a byte of the input after it, else stop before it.
    let q = at;
    const negative = load<u8>(q) == 0x2d;
    if (negative) q++;
    if (q >= end) break;
    let d = <u32>load<u8>(q) - 0x30;
    let v: u64 = 0;
    if (d == 0) {
      q++;
    } else {
      if (d >= 10) break;
      const digits = q;
      do {
        v = v * 10 + <u64>d;
        q++;
        if (q >= end) break;
        d = <u32>load<u8>(q) - 0x30;
      } while (d < 10);
      if (q >= end || q - digits > 15) break;
    }
    if (q >= end) break;
    const next = <u32>load<u8>(q);
    // A fraction, an exponent, or a leading zero's digit: the general path's to take.
    if (next == 0x2e || (next | 0x20) == 0x65 || next - 0x30 < 10) break;
    if (!first) store<i32>(countAt, load<i32>(countAt) + 1);
    const f = <f64>v;
    // No room (runsFull pauses well before): the error stands after the number, as it would there.
    if (!toRun(type, negative ? -f : f)) { runFailed = true; return q; }
    first = false;
    anyValue = true;
    state = S_AFTER_VALUE;
    reached = q;
    if (paused || next != 0x2c || q + 1 >= end) break;
    const b = <u32>load<u8>(q + 1);
    if (b != 0x2d && b - 0x30 >= 10) break;
    // The comma is taken with the element after it; should that element not be taken, the
    // scanner stands after the comma.
    at = q + 1;
    state = S_VALUE;
    reached = at;
  }
  if (reached != p && depth == 1) lastClosedObject = false;
  return reached;
}

const WS_BITS: u64 = (<u64>1 << 0x20) | (<u64>1 << 0x0a) | (<u64>1 << 0x0d) | (<u64>1 << 0x09);
/** JSON whitespace: one compare for the common non-space byte. */
@inline function isSpace(b: u32): bool { return b <= 0x20 && ((WS_BITS >> <u64>b) & 1) != 0; }

/**
 * Scans the fed bytes until they run out, a batch fills up, or an error. Tokens that lie
 * whole in the input (the common case) are taken in one step each; a token that may
 * continue past the end of the input, or that needs decoding (escapes, non-ASCII bytes
 * in captured text), goes through the resumable tokenizers from its first byte, which
 * also report every error of a malformed token.
 */
export function scannerRun(): i32 {
  paused = false;
  let p = pos;
  const end = inEnd;
  while (p < end) {
    const st = state;
    if (<u32>(st - S_STRING) <= <u32>(S_LITERAL - S_STRING)) {
      // A token in progress: it began in an earlier input, or needs decoding.
      if (st == S_STRING) {
        p = stringScan(p, end);
        if (stringError() != 0) { pos = p; return fail(stringError()); }
        if (!stringDone()) break;
        const e = finishString();
        if (e != 0) { pos = p; return fail(e); }
        if (paused) break;
        continue;
      }
      if (st == S_NUMBER) {
        while (p < end && numberByte(<i32>load<u8>(p))) p++;
        if (p >= end) break;
        const e = finishNumber();
        if (e != 0) { pos = p; return fail(e); }
        if (paused) break;
        continue;
      }
      // S_LITERAL
      if (<i32>load<u8>(p) != <i32>load<u8>(literal + <usize>literalPos)) {
        pos = p; return fail(ERR_UNEXPECTED);
      }
      p++;
      if (++literalPos == literalLen) {
        if (capturing()) capRun(literal, literalLen);
        const e = endValue(valueNode, tokenFlags, literalTag, 0, 0);
        afterValue();
        if (e != 0) { pos = p; return fail(e); }
        if (paused) break;
      }
      continue;
    }
    const b = <i32>load<u8>(p);
    if (isSpace(<u32>b)) {
      p++;
      while (p < end && isSpace(<u32>load<u8>(p))) p++;
      continue;
    }
    switch (st) {
      case S_VALUE:
      case S_ARR_FIRST: {
        if (st == S_ARR_FIRST) {
          if (b == 0x5d) {
            p++;
            const e = popContainer(0x5d);
            if (e != 0) { pos = p; return fail(e); }
            if (paused) { pos = p; return ST_BATCH; }
            continue;
          }
          valueNode = nodeElem(load<i32>(lvNode + <usize>(depth - 1) * 4));
        }
        countElement();
        const isContainer = b == 0x7b || b == 0x5b;
        const flags = beginValue(isContainer, b);
        if (flags < 0) { pos = p; return fail(-flags); }
        if (isContainer) {
          const e = pushContainer(b == 0x7b ? KIND_OBJECT : KIND_ARRAY, flags);
          if (e != 0) { pos = p; return fail(e); }
          state = b == 0x7b ? S_OBJ_FIRST : S_ARR_FIRST;
          p++;
          continue;
        }
        if (b == 0x22) {
          const q = scanPlain(p + 1, end, capturing());
          if (q < end && load<u8>(q) == 0x22) {
            const e = plainStringValue(flags, p + 1, <i32>(q - p - 1));
            p = q + 1;
            if (e != 0) { pos = p; return fail(e); }
            if (paused) { pos = p; return ST_BATCH; }
            if (p < end && load<u8>(p) == 0x2c && state == S_AFTER_VALUE) { comma(); p++; }
            continue;
          }
          tokenFlags = flags;
          stringIsKey = false;
          stringBegin((nodeMode(valueNode) & MODE_SCALAR) != 0 && nodeSlot(valueNode) >= 0);
          state = S_STRING;
          p++;
          continue;
        }
        if (b == 0x2d || <u32>(b - 0x30) < 10) {
          if (flags == LV_RUN && !capturing()) {
            const q = numberRun(p, end);
            if (runFailed) { pos = q; return fail(ERR_RECORDS_DEEP); }
            if (q != p) {
              p = q;
              if (paused) { pos = p; return ST_BATCH; }
              continue;
            }
          }
          const q = numberScan(p, end);
          if (q != 0) {
            const e = plainNumber(flags, p, q);
            p = q;
            if (e != 0) { pos = p; return fail(e); }
            if (paused) { pos = p; return ST_BATCH; }
            if (load<u8>(p) == 0x2c && state == S_AFTER_VALUE) { comma(); p++; }
            continue;
          }
          tokenFlags = flags;
          numberBegin();
          numberByte(b);
          state = S_NUMBER;
          p++;
          continue;
        }
        // Literals whole in the input.
        let lit = 0;
        if (b == 0x74) { if (p + 4 <= end && load<u32>(p) == 0x65757274) lit = TAG_TRUE; }
        else if (b == 0x66) { if (p + 5 <= end && load<u32>(p + 1) == 0x65736c61) lit = TAG_FALSE; }
        else if (b == 0x6e) { if (p + 4 <= end && load<u32>(p) == 0x6c6c756e) lit = TAG_NULL; }
        if (lit != 0) {
          const n: usize = lit == TAG_FALSE ? 5 : 4;
          if (capturing()) capRun(p, n);
          const e = endValue(valueNode, flags, lit, 0, 0);
          afterValue();
          p += n;
          if (e != 0) { pos = p; return fail(e); }
          if (paused) { pos = p; return ST_BATCH; }
          continue;
        }
        tokenFlags = flags;
        if (b == 0x74) { startLiteral(TRUE_BYTES, TAG_TRUE); continue; }
        if (b == 0x66) { startLiteral(FALSE_BYTES, TAG_FALSE); continue; }
        if (b == 0x6e) { startLiteral(NULL_BYTES, TAG_NULL); continue; }
        pos = p;
        return fail(ERR_UNEXPECTED);
      }
      case S_OBJ_FIRST:
      case S_OBJ_KEY: {
        if (st == S_OBJ_FIRST && b == 0x7d) {
          p++;
          const e = popContainer(0x7d);
          if (e != 0) { pos = p; return fail(e); }
          if (paused) { pos = p; return ST_BATCH; }
          continue;
        }
        if (b != 0x22) { pos = p; return fail(ERR_UNEXPECTED); }
        const cap = capturing();
        const q = scanPlain(p + 1, end, cap);
        if (q < end && load<u8>(q) == 0x22) {
          plainKey(p + 1, <i32>(q - p - 1));
          p = q + 1;
          // The colon mostly follows at once.
          if (p < end && load<u8>(p) == 0x3a) {
            state = S_VALUE;
            p++;
          }
          continue;
        }
        stringIsKey = true;
        // Captured keys are read too, at any depth: integer-like ones make the text slow
        // (JavaScript orders them first).
        stringBegin(load<i32>(lvNode + <usize>(depth - 1) * 4) >= 0 || cap);
        state = S_STRING;
        p++;
        continue;
      }
      case S_COLON: {
        if (b != 0x3a) { pos = p; return fail(ERR_UNEXPECTED); }
        state = S_VALUE;
        p++;
        continue;
      }
      case S_AFTER_VALUE: {
        if (b == 0x2c) {
          comma();
          p++;
          continue;
        }
        const kind = load<u8>(lvKind + <usize>(depth - 1));
        if ((kind == KIND_ARRAY && b == 0x5d) || (kind == KIND_OBJECT && b == 0x7d)) {
          p++;
          const e = popContainer(b);
          if (e != 0) { pos = p; return fail(e); }
          if (paused) { pos = p; return ST_BATCH; }
          if (p < end && load<u8>(p) == 0x2c && state == S_AFTER_VALUE) { comma(); p++; }
          continue;
        }
        pos = p;
        return fail(ERR_UNEXPECTED);
      }
      default: {
        // S_DONE: another top-level value, accepted only in value-sequence mode (JSON Lines).
        if (st == S_DONE && valueSequence) {
          state = S_VALUE;
          valueNode = 0;
          continue;
        }
        pos = p;
        return fail(ERR_UNEXPECTED); // S_DONE: data after the top-level value; S_ERROR
      }
    }
  }
  pos = p;
  if (paused) return ST_BATCH;
  return ST_NEED_INPUT;
}

/** Whether the document is complete at end of input (a trailing number ends here). */
export function scannerFinish(repairArray: bool): i32 {
  if (state == S_NUMBER) {
    const e = finishNumber();
    if (e != 0) return fail(e);
  }
  if (state == S_DONE) return ST_DONE;
  if (!anyValue) return fail(ERR_EMPTY);
  // A top-level event array cut off after an element (and maybe a comma), which the
  // Trace Event Format allows: close it as if `]` followed.
  const afterComma = state == S_VALUE && depth == 1;
  if (repairArray && depth == 1 && load<u8>(lvKind) == KIND_ARRAY
    && (state == S_AFTER_VALUE || afterComma) && lastClosedObject) {
    const e = popContainer(0x5d);
    if (e != 0) return fail(e);
    return ST_DONE + ST_REPAIRED;
  }
  return fail(ERR_END);
}
