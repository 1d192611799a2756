/**
 * Streaming JSON scanner: exports for the host (src/adapters/wasm/json-scanner.ts).
 * Protocol: reserveProgram → write the program → init → repeat { write a chunk at
 * inputPtr, feed, run until NEED_INPUT, draining each BATCH } → finish.
 */
import { regionsReset, region } from "../common/regions";
import {
  dictInit, newStringsBytes, newStringsCount, newStringsDrained, newStringsPtr,
} from "../common/dict";
import { captureInit } from "./capture";
import { numberInit } from "./numtok";
import { declareTypeSlots, programLoad, slotsPerRecord } from "./program";
import {
  drained, outPtr, outRecords, outStride, recordsInit, setTruncateAt, textBytes, textPtr,
} from "./records";
import {
  scannerAllowSequence, scannerBetweenElements, scannerContainerNode, scannerDepth, scannerError,
  scannerErrorOffset, scannerFeed, scannerFinish, scannerInit, scannerRun,
} from "./scanner";
import { runsDrained, runsInit, runsCount, runsPtr, runValuesPtr } from "./runs";
import { stringInit } from "./strtok";

/** Numbers (f64) and runs a batch holds at most (runs.ts). */
const RUN_VALUES: i32 = 65536;
const RUN_COUNT: i32 = 1024;

let programAt: usize = 0;
let input: usize = 0;

export function reserveProgram(bytes: i32): usize {
  regionsReset();
  programAt = region(<usize>bytes);
  return programAt;
}

/** Allocates every buffer; 0 when the module's memory maximum cannot hold them. */
export function init(
  maxDepth: i32, inputBytes: i32, stringBytes: i32, captureBytes: i32, outRecordsCap: i32,
  textCap: i32, softRecords: i32, softText: i32, dictSlotsLog2: i32, dictArena: i32,
  newStringsCap: i32, truncateAt: i32,
): i32 {
  programLoad(programAt);
  input = region(<usize>inputBytes);
  if (input == 0) return 0;
  if (!stringInit(<usize>stringBytes) || !numberInit(4096) || !captureInit(<usize>captureBytes))
    return 0;
  if (!recordsInit(slotsPerRecord, maxDepth + 1, outRecordsCap, <usize>textCap)) return 0;
  declareTypeSlots();
  if (!runsInit(RUN_VALUES, RUN_COUNT)) return 0;
  if (!dictInit(dictSlotsLog2, <usize>dictArena, <usize>newStringsCap)) return 0;
  if (!scannerInit(maxDepth, softRecords, <usize>softText)) return 0;
  setTruncateAt(truncateAt);
  return 1;
}

export function inputPtr(): usize { return input; }
export function feed(len: i32): void { scannerFeed(input, <usize>len); }
export function run(): i32 { return scannerRun(); }
export function finish(repairArray: i32): i32 { return scannerFinish(repairArray != 0); }

/** The host consumed the batch (records, texts, new strings). */
export function drain(): void {
  drained();
  runsDrained();
  newStringsDrained();
}

export function recordsPtr(): usize { return outPtr(); }
export function recordCount(): i32 { return outRecords(); }
export function recordStride(): i32 { return outStride(); }
/** The batch's number runs: (record type, count) i32 pairs, and their values (f64) in order. */
export function numberRunsPtr(): usize { return runsPtr(); }
export function numberRunCount(): i32 { return runsCount(); }
export function numberRunValuesPtr(): usize { return runValuesPtr(); }
export function textAreaPtr(): usize { return textPtr(); }
export function textAreaBytes(): i32 { return <i32>textBytes(); }
export function stringsPtr(): usize { return newStringsPtr(); }
export function stringsBytes(): i32 { return <i32>newStringsBytes(); }
export function stringsCount(): i32 { return newStringsCount(); }
export function errorCode(): i32 { return scannerError(); }
export function errorOffset(): f64 { return scannerErrorOffset(); }
export function depth(): i32 { return scannerDepth(); }
/** BETWEEN_* of scanner.ts: where the input so far ended within an array. */
export function betweenElements(): i32 { return scannerBetweenElements(); }
export function containerNode(): i32 { return scannerContainerNode(); }
/** 1: a whitespace-separated sequence of top-level values (JSON Lines) instead of one. */
export function allowValueSequence(on: i32): void { scannerAllowSequence(on != 0); }
