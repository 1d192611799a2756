/**
 * The nesting thread: plays a trace's nesting ops into a SliceNester of its own
 * (src/adapters/trace-events/remote-nester.ts) while the parser writes the rows, then hands
 * its measures and stack trie back and ends. Its trie spills into the parser's scratch
 * directory under names of its own; the spilled files are released to the parser's space.
 *
 * The ops come through shared memory, not messages (a message of one 0.75 MB chunk cost the
 * parser ~4 ms; the ring costs it a store and a notify): NEST_SLOTS chunks in a ring, and
 * counters both sides read (nest-ring.ts).
 */
import { NestReplay } from "../src/adapters/trace-events/remote-nester.ts";
import {
  APPLIED,
  CHUNK_FLOATS,
  CLOSED,
  COUNTS,
  FAILED,
  FINISHED,
  NEST_SLOTS,
  type NestOpen,
  PUBLISHED,
} from "./nest-ring.ts";
import { FileSpillSpace } from "./spill-space.ts";

declare const self: Worker;

/** Ops applied between two looks at whether the parser stopped this thread. */
const STEP_OPS = 4096;

self.onmessage = (event: MessageEvent<NestOpen>) => {
  const { control, ring } = event.data;
  let space: FileSpillSpace | null = null;
  try {
    const { frameCount, metric, spillDir, maxStacks } = event.data;
    space = spillDir ? new FileSpillSpace(spillDir, undefined, "nest-spill-") : null;
    const replay = new NestReplay(frameCount, metric, space ? { space, maxStacks } : undefined);
    // Stopped by the parser: what this thread spilled goes with it. Looked at between steps of a
    // chunk too: a chunk whose stacks spill many times can take seconds.
    const stopped = () => {
      if (Atomics.load(control, CLOSED) === 0) return false;
      space?.disposeAll();
      return true;
    };
    let applied = 0;
    for (;;) {
      if (stopped()) return process.exit(0);
      const published = Atomics.load(control, PUBLISHED);
      if (applied < published) {
        const slot = applied % NEST_SLOTS;
        const count = control[COUNTS + slot]!;
        for (let from = 0; from < count; from += STEP_OPS) {
          if (stopped()) return process.exit(0);
          const at = slot * CHUNK_FLOATS + 3 * from;
          const ops = Math.min(STEP_OPS, count - from);
          replay.apply(ring.subarray(at, at + 3 * ops), ops);
        }
        Atomics.store(control, APPLIED, ++applied);
        Atomics.notify(control, APPLIED);
        continue;
      }
      if (Atomics.load(control, FINISHED) !== 0) break;
      Atomics.wait(control, PUBLISHED, published, 1000);
    }
    const nested = replay.finish();
    const { columns, deepStacks } = nested.stacks;
    const runs = nested.stacks.runs.map((file) => space!.release(file));
    const buffers = [
      columns.parent,
      columns.frame,
      columns.track,
      columns.count,
      columns.durationNs,
      columns.firstRelNs,
    ].map((a) => a.buffer as ArrayBuffer);
    postMessage(
      { kind: "nested", nested: { ...nested, stacks: { columns, runs, deepStacks } } },
      buffers,
    );
  } catch (error) {
    space?.disposeAll();
    Atomics.store(control, FAILED, 1);
    Atomics.notify(control, APPLIED);
    postMessage({
      kind: "failed",
      message: error instanceof Error ? error.message : String(error),
    });
  }
  // Nothing is left to do: the thread ends itself, so the parser never waits to stop it.
  process.exit(0);
};
