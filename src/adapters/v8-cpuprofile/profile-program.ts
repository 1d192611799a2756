/**
 * What the WASM JSON scanner extracts from a `.cpuprofile`: the top-level fields, one
 * record per node (with its call frame fields and its `children` ids as child records),
 * and the samples, time deltas and (legacy form) timestamps as runs of numbers (a record
 * only for an element that is not a number).
 */
import {
  JsonProgram,
  MODE_JSON,
  MODE_JSON_IF_CONTAINER,
  MODE_NUMBER_RUN,
  MODE_SCALAR,
} from "../wasm/json-program.ts";

export const R_PROFILE = 0;
export const R_NODE = 1;
export const R_CHILD = 2;
export const R_SAMPLE = 3;
export const R_DELTA = 4;
export const R_TIMESTAMP = 5;

export const P_NODES = 0;
export const P_SAMPLES = 1;
export const P_TIME_DELTAS = 2;
export const P_START = 3;
export const P_END = 4;
export const P_HEAD = 5;
export const P_TIMESTAMPS = 6;

/** Node slots. */
export const N_ID = 0;
export const N_CALL_FRAME = 1;
export const N_FUNCTION = 2;
export const N_URL = 3;
export const N_LINE = 4;
export const N_COLUMN = 5;
export const N_CHILDREN = 6;
export const N_PARENT = 7;

const ANY = MODE_SCALAR | MODE_JSON_IF_CONTAINER;

export function profileProgram(): JsonProgram {
  const p = new JsonProgram(8);
  p.record(0, R_PROFILE).special(R_PROFILE, -1, "");
  // Arrays are reported by kind and length (their elements are records); the legacy
  // `head` tree is small and captured whole as JSON text.
  const top: [string, number, number][] = [
    ["nodes", P_NODES, MODE_SCALAR],
    ["samples", P_SAMPLES, MODE_SCALAR],
    ["timeDeltas", P_TIME_DELTAS, MODE_SCALAR],
    ["timestamps", P_TIMESTAMPS, MODE_SCALAR],
    ["startTime", P_START, ANY],
    ["endTime", P_END, ANY],
    ["head", P_HEAD, MODE_JSON],
  ];
  const topNode = new Map<string, number>();
  for (const [key, slot, mode] of top) {
    const n = p.key(0, key);
    p.slot(n, R_PROFILE, slot, mode);
    topNode.set(key, n);
  }
  const node = p.elem(topNode.get("nodes")!, p.node({ record: R_NODE }));
  p.slot(p.key(node, "id"), R_NODE, N_ID, ANY);
  p.slot(p.key(node, "parent"), R_NODE, N_PARENT, ANY);
  const callFrame = p.key(node, "callFrame");
  p.slot(callFrame, R_NODE, N_CALL_FRAME);
  const frameFields: [string, number][] = [
    ["functionName", N_FUNCTION],
    ["url", N_URL],
    ["lineNumber", N_LINE],
    ["columnNumber", N_COLUMN],
  ];
  for (const [key, slot] of frameFields) p.slot(p.key(callFrame, key), R_NODE, slot, ANY);
  const children = p.key(node, "children");
  p.slot(children, R_NODE, N_CHILDREN);
  p.slot(p.elem(children, p.node({ record: R_CHILD })), R_CHILD, 0, ANY);
  // The bulk: number elements come as number runs, any other element as a record.
  const numbers = (key: string, record: number) =>
    p.slot(p.elem(topNode.get(key)!, p.node({ record })), record, 0, ANY | MODE_NUMBER_RUN);
  numbers("samples", R_SAMPLE);
  numbers("timeDeltas", R_DELTA);
  numbers("timestamps", R_TIMESTAMP);
  return p;
}
