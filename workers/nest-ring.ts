/**
 * The shared memory between the parser and its nesting thread (nest-offload.ts, nest-thread.ts):
 * NEST_SLOTS chunks of ops in a ring, and counters both sides read and wait on.
 */
import type { FrameMetric } from "../src/domain/evidence-schema.ts";
import { OPS_PER_CHUNK } from "../src/adapters/trace-events/remote-nester.ts";

/** Chunks in the ring: how far the parser may run ahead of this thread. */
export const NEST_SLOTS = 8;
export const CHUNK_FLOATS = 3 * OPS_PER_CHUNK;
/** Indices of the control counters (an Int32Array over `control`). */
export const PUBLISHED = 0;
export const APPLIED = 1;
/** 1 once the parser has published its last chunk. */
export const FINISHED = 2;
/** 1 when this thread failed (its message follows). */
export const FAILED = 3;
/** 1 when the parser stops this thread. */
export const CLOSED = 4;
export const CONTROL_INTS = 5 + NEST_SLOTS;
/** Where each slot's op count is, from here on. */
export const COUNTS = 5;

/** The one message from the parser: the shared ring and what to nest. */
export interface NestOpen {
  frameCount: number;
  metric: FrameMetric;
  /** Where the trie spills (null: it does not). */
  spillDir: string | null;
  maxStacks?: number;
  control: Int32Array;
  /** NEST_SLOTS chunks of CHUNK_FLOATS each. */
  ring: Float64Array;
}
