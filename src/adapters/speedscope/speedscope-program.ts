/**
 * What the WASM JSON scanner extracts from a speedscope file: the top-level fields, the
 * `shared` object with one record per frame, one record per profile (its scalars and the
 * kind and length of its arrays), and per profile one record per sample (with one per
 * frame index in it), per weight and per event. Nothing else of the document is kept.
 */
import { JsonProgram, MODE_JSON_IF_CONTAINER, MODE_SCALAR } from "../wasm/json-program.ts";

export const R_TOP = 0;
export const R_SHARED = 1;
export const R_FRAME = 2;
export const R_PROFILE = 3;
export const R_SAMPLE = 4;
export const R_INDEX = 5;
export const R_WEIGHT = 6;
export const R_EVENT = 7;

/** Top-level slots. */
export const T_EXPORTER = 0;
export const T_VERSION = 1;
export const T_NAME = 2;
export const T_SHARED = 3;
export const T_PROFILES = 4;

/** `shared` slots. */
export const S_FRAMES = 0;

/** Frame slots. */
export const F_NAME = 0;
export const F_FILE = 1;
export const F_LINE = 2;
export const F_COL = 3;

/** Profile slots. */
export const P_TYPE = 0;
export const P_NAME = 1;
export const P_UNIT = 2;
export const P_START = 3;
export const P_END = 4;
export const P_SAMPLES = 5;
export const P_WEIGHTS = 6;
export const P_EVENTS = 7;

/** Event slots. */
export const E_TYPE = 0;
export const E_FRAME = 1;
export const E_AT = 2;

/** Errors quote the type and unit found, containers included. */
const QUOTED = MODE_SCALAR | MODE_JSON_IF_CONTAINER;

export function speedscopeProgram(): JsonProgram {
  const p = new JsonProgram(8);
  p.record(0, R_TOP);
  p.slot(p.key(0, "exporter"), R_TOP, T_EXPORTER);
  p.slot(p.key(0, "version"), R_TOP, T_VERSION);
  p.slot(p.key(0, "name"), R_TOP, T_NAME);
  const shared = p.key(0, "shared", p.node({ record: R_SHARED }));
  p.slot(shared, R_TOP, T_SHARED);
  const frames = p.key(shared, "frames");
  p.slot(frames, R_SHARED, S_FRAMES);
  const frame = p.elem(frames, p.node({ record: R_FRAME }));
  const frameFields: [string, number][] = [
    ["name", F_NAME],
    ["file", F_FILE],
    ["line", F_LINE],
    ["col", F_COL],
  ];
  for (const [key, slot] of frameFields) p.slot(p.key(frame, key), R_FRAME, slot);
  const profiles = p.key(0, "profiles");
  p.slot(profiles, R_TOP, T_PROFILES);
  const profile = p.elem(profiles, p.node({ record: R_PROFILE }));
  const profileFields: [string, number, number][] = [
    ["type", P_TYPE, QUOTED],
    ["name", P_NAME, MODE_SCALAR],
    ["unit", P_UNIT, QUOTED],
    ["startValue", P_START, MODE_SCALAR],
    ["endValue", P_END, MODE_SCALAR],
  ];
  for (const [key, slot, mode] of profileFields) p.slot(p.key(profile, key), R_PROFILE, slot, mode);
  const samples = p.key(profile, "samples");
  p.slot(samples, R_PROFILE, P_SAMPLES);
  const sample = p.elem(samples, p.node({ record: R_SAMPLE }));
  p.slot(p.elem(sample, p.node({ record: R_INDEX })), R_INDEX, 0);
  const weights = p.key(profile, "weights");
  p.slot(weights, R_PROFILE, P_WEIGHTS);
  p.slot(p.elem(weights, p.node({ record: R_WEIGHT })), R_WEIGHT, 0);
  const events = p.key(profile, "events");
  p.slot(events, R_PROFILE, P_EVENTS);
  const event = p.elem(events, p.node({ record: R_EVENT }));
  p.slot(p.key(event, "type"), R_EVENT, E_TYPE);
  p.slot(p.key(event, "frame"), R_EVENT, E_FRAME);
  p.slot(p.key(event, "at"), R_EVENT, E_AT);
  return p;
}
