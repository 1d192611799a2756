/**
 * Streaming protobuf scanner: exports for the host (src/adapters/wasm/proto-scanner.ts).
 * Same protocol as the JSON scanner: reserveProgram → init → feed/run, drain each
 * batch → finish.
 */
import { regionsReset, region } from "../common/regions";
import {
  dictInit, newStringsBytes, newStringsCount, newStringsDrained, newStringsPtr,
} from "../common/dict";
import { captureInit } from "../json/capture";
import {
  kvJson, kvJsonBatch, kvJsonBatchPtr, kvJsonInit, kvJsonLengthsPtr, kvJsonPtr, kvJsonStartsPtr,
} from "./kv-json";
import {
  drained, outPtr, outRecords, outStride, recordsInit, setTruncateAt, textBytes, textPtr,
} from "../json/records";
import { declareTypeSlots, programLoad, slotsPerRecord } from "./program";
import {
  scannerError, scannerErrorOffset, scannerFeed, scannerFinish, scannerInit, scannerRestart,
  scannerRun,
} from "./scanner";

let programAt: usize = 0;
let input: usize = 0;

export function reserveProgram(bytes: i32): usize {
  regionsReset();
  programAt = region(<usize>bytes);
  return programAt;
}

export function init(
  maxDepth: i32, inputBytes: i32, stringBytes: i32, captureBytes: i32, outRecordsCap: i32,
  textCap: i32, softRecords: i32, softText: i32, dictSlotsLog2: i32, dictArena: i32,
  newStringsCap: i32,
): i32 {
  if (!programLoad(programAt)) return 0;
  input = region(<usize>inputBytes);
  if (input == 0 || !captureInit(<usize>captureBytes)) return 0;
  if (!recordsInit(slotsPerRecord, maxDepth + 2, outRecordsCap, <usize>textCap)) return 0;
  declareTypeSlots();
  if (!dictInit(dictSlotsLog2, <usize>dictArena, <usize>newStringsCap)) return 0;
  if (!scannerInit(maxDepth, <usize>stringBytes, softRecords, <usize>softText)) return 0;
  // KeyValue JSON past these is written by the host (kv-json.ts): one KeyValue's, a batch's.
  if (!kvJsonInit(1 << 20, 4 << 20, outRecordsCap)) return 0;
  setTruncateAt(0x7fffffff);
  return 1;
}

export function inputPtr(): usize { return input; }
export function feed(len: i32): void { scannerFeed(input, <usize>len); }
export function run(): i32 { return scannerRun(); }
export function finish(): i32 { return scannerFinish(); }
/** After `finish` (and its batch drained): scan a new, independent payload. */
export function restart(): void { scannerRestart(); }
export function drain(): void {
  drained();
  newStringsDrained();
}
export function recordsPtr(): usize { return outPtr(); }
export function recordCount(): i32 { return outRecords(); }
export function recordStride(): i32 { return outStride(); }
export function textAreaPtr(): usize { return textPtr(); }
export function textAreaBytes(): i32 { return <i32>textBytes(); }
export function stringsPtr(): usize { return newStringsPtr(); }
export function stringsBytes(): i32 { return <i32>newStringsBytes(); }
export function stringsCount(): i32 { return newStringsCount(); }
export function errorCode(): i32 { return scannerError(); }
export function errorOffset(): f64 { return scannerErrorOffset(); }

/**
 * The attribute JSON of the OTLP KeyValue message in [ptr, ptr+len) (bytes of a batch's text
 * area): its length, at keyValueJsonPtr(), valid until the next call; -1 where the host writes
 * it (kv-json.ts). A function of its own that the host calls, not a step of the scan: inlined
 * there, its code slowed every protobuf scan by ~35%, attributes or not.
 */
export function keyValueJson(ptr: usize, len: i32): i32 { return kvJson(ptr, <usize>len); }
export function keyValueJsonPtr(): usize { return kvJsonPtr(); }
/** Every KeyValue's JSON of the batch in one call (kv-json.ts kvJsonBatch). */
export function keyValueJsonBatch(kvType: i32, slot: i32): void { kvJsonBatch(kvType, slot); }
export function keyValueJsonBatchPtr(): usize { return kvJsonBatchPtr(); }
export function keyValueJsonStartsPtr(): usize { return kvJsonStartsPtr(); }
export function keyValueJsonLengthsPtr(): usize { return kvJsonLengthsPtr(); }
