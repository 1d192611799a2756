/**
 * What the WASM JSON scanner extracts from a Chrome trace: each element of the top-level
 * array (or of `traceEvents`) is an event record with its fields in slots; the container
 * record keeps the few top-level fields that name the producer. Event `args` are captured
 * as canonical JSON text, cut at maxArgsBytes, except for the events whose args are read
 * (metadata `M`, V8 `Profile`/`ProfileChunk`/`CpuProfile`), which keep them whole.
 */
import {
  JsonProgram,
  MODE_JSON,
  MODE_JSON_IF_CONTAINER,
  MODE_SCALAR,
} from "../wasm/json-program.ts";

export const REC_CONTAINER = 0;
export const REC_EVENT = 1;

export const E_PH = 0;
export const E_NAME = 1;
export const E_CAT = 2;
export const E_PID = 3;
export const E_TID = 4;
export const E_TS = 5;
export const E_DUR = 6;
export const E_ID = 7;
export const E_ARGS = 8;
export const E_ID2 = 9;
export const E_TTS = 10;
export const E_TDUR = 11;

export const C_TRACE_EVENTS = 0;
export const C_METADATA = 1;
export const C_SAMPLES = 2;
/** Keys whose presence marks a torch.profiler (Kineto) trace. */
export const C_PRESENCE_KEYS = [
  "schemaVersion",
  "deviceProperties",
  "traceName",
  "distributedInfo",
] as const;
const C_FIRST_PRESENCE = 3;
export const cPresence = (key: (typeof C_PRESENCE_KEYS)[number]): number =>
  C_FIRST_PRESENCE + C_PRESENCE_KEYS.indexOf(key);

export const PROFILE_EVENT_NAMES = ["Profile", "ProfileChunk", "CpuProfile"] as const;

export function traceProgram(): JsonProgram {
  return build().program;
}

/**
 * The program nodes of the arrays whose elements are events: the top-level array and `traceEvents`.
 */
export function eventArrayNodes(): readonly number[] {
  return build().eventArrays;
}

function build(): { program: JsonProgram; eventArrays: number[] } {
  const p = new JsonProgram(12);
  const root = 0;
  p.record(root, REC_CONTAINER).special(REC_CONTAINER, -1, "");
  const event = p.node({ record: REC_EVENT });
  p.elem(root, event);
  const traceEvents = p.key(root, "traceEvents");
  p.slot(traceEvents, REC_CONTAINER, C_TRACE_EVENTS).elem(traceEvents, event);
  p.slot(p.key(root, "metadata"), REC_CONTAINER, C_METADATA, MODE_JSON);
  p.slot(p.key(root, "samples"), REC_CONTAINER, C_SAMPLES);
  for (const key of C_PRESENCE_KEYS) p.slot(p.key(root, key), REC_CONTAINER, cPresence(key));
  const fields: [string, number][] = [
    ["ph", E_PH],
    ["name", E_NAME],
    ["cat", E_CAT],
    ["pid", E_PID],
    ["tid", E_TID],
    ["ts", E_TS],
    ["dur", E_DUR],
    ["id", E_ID],
    ["id2", E_ID2],
    ["tts", E_TTS],
    ["tdur", E_TDUR],
  ];
  for (const [key, slot] of fields)
    p.slot(p.key(event, key), REC_EVENT, slot, MODE_SCALAR | MODE_JSON_IF_CONTAINER);
  p.slot(p.key(event, "args"), REC_EVENT, E_ARGS, MODE_JSON);
  p.special(REC_EVENT, E_PH, "M");
  for (const name of PROFILE_EVENT_NAMES) p.special(REC_EVENT, E_NAME, name);
  return { program: p, eventArrays: [root, traceEvents] };
}
