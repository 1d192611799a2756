/**
 * Number runs: the number elements of an array whose element node the program marks
 * MODE_NUMBER_RUN (a CPU profile's samples and time deltas, millions of numbers) are
 * appended to one f64 area in document order instead of each opening a record (a record
 * is 16 + 16 × slots bytes written, copied out and decoded by the host one by one).
 * Consecutive numbers of one record type form a run: (type, count) pairs, i32 each.
 * An element that is not a number still opens its record, and leaves a NaN in its run
 * (no JSON number parses to NaN): the host puts the record's value in that place.
 */
import { region } from "../common/regions";

let values: usize = 0;
let valueCap: i32 = 0;
let valueCount: i32 = 0;
let runs: usize = 0;
let runCap: i32 = 0;
let runCount: i32 = 0;
/**
 * Room left when a batch counts as full: the NaN places that nested non-number elements (at
 * most one per level, 4096 levels) may add before the scanner next checks for a pause.
 */
const HEADROOM: i32 = 8192;

export function runsInit(valueCapacity: i32, runCapacity: i32): bool {
  valueCap = valueCapacity;
  runCap = runCapacity;
  values = region(<usize>valueCap * 8);
  runs = region(<usize>runCap * 8);
  valueCount = 0;
  runCount = 0;
  return values != 0 && runs != 0;
}

/** Appends `value` to the run of `type`; false when the area is full (the host drains first). */
export function runAppend(type: i32, value: f64): bool {
  if (valueCount >= valueCap) return false;
  // The open run, unless the value starts a new one (the first, or one of another type).
  let run = runs + <usize>runCount * 8 - 8;
  if (runCount == 0 || load<i32>(run) != type) {
    if (runCount >= runCap) return false;
    run = runs + <usize>(runCount++) * 8;
    store<i32>(run, type);
    store<i32>(run, 0, 4);
  }
  store<f64>(values + <usize>(valueCount++) * 8, value);
  store<i32>(run, load<i32>(run, 4) + 1, 4);
  return true;
}

/** Whether the batch should be handed over (with room left for what comes before a pause). */
@inline export function runsFull(): bool {
  return valueCount >= valueCap - HEADROOM || runCount >= runCap - 1;
}

export function runsDrained(): void {
  valueCount = 0;
  runCount = 0;
}

export function runsPtr(): usize { return runs; }
export function runsCount(): i32 { return runCount; }
export function runValuesPtr(): usize { return values; }
