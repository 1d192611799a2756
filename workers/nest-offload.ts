/**
 * Threads that nest a trace's slices while the parser writes its rows (the parser side is
 * src/adapters/trace-events/remote-nester.ts; the thread is nest-thread.ts). One thread per
 * trace, started when its rows begin and ended once it has handed its results back.
 *
 * Ops go through a ring of NEST_SLOTS chunks in shared memory: the parser fills a slot and
 * publishes it without waiting; only when every slot is still unread does it block
 * (Atomics.wait) until the thread catches up, so a thread slower than the parser (one core)
 * holds a few MB of ops, never the trace's.
 */
import type { NestChannel, NestOffload, SpillFile } from "../src/adapters/adapter.ts";
import type { StackSpill } from "../src/adapters/common/stack-trie.ts";
import type { NestedParts } from "../src/adapters/trace-events/remote-nester.ts";
import { FlameoxError } from "../src/domain/errors.ts";
import * as Ring from "./nest-ring.ts";
import type { FileSpillSpace } from "./spill-space.ts";

/**
 * How long a thread may apply no chunk before it is taken for stuck (a thread that never
 * started, say): a chunk takes well under a second, and a full trie's spill about one.
 */
export const NEST_STALL_MS = 30_000;

/** What the thread answers: its parts, the trie's spilled runs as released files. */
type NestAnswer =
  | {
      kind: "nested";
      nested: Omit<NestedParts, "stacks"> & {
        stacks: {
          columns: NestedParts["stacks"]["columns"];
          runs: { path: string; size: number }[];
          deepStacks: number;
        };
      };
    }
  | { kind: "failed"; message: string };

/**
 * Nesting threads whose tries spill into `spill` (the extraction's scratch space, in `dir`). In a
 * compiled binary there are none (its embedded modules cannot start threads): `open` is null.
 */
export function startNestOffload(
  spill: FileSpillSpace,
  dir: string,
  options: { thread?: string; stallMs?: number } = {},
): NestOffload & {
  /** Threads started so far. */
  readonly opened: number;
  /** Stops every thread still running (after a failure). */
  closeAll(): void;
} {
  const here = import.meta.url;
  const thread = options.thread ?? new URL("./nest-thread.ts", here).href;
  const stallMs = options.stallMs ?? NEST_STALL_MS;
  const running = new Set<() => void>();
  const compiled = here.includes("/$bunfs/") || here.includes("%24bunfs");
  let opened = 0;
  return {
    get opened() {
      return opened;
    },
    open(frameCount, metric, stackSpill?: StackSpill): NestChannel | null {
      // The trie's runs come back into the extraction's space; another space cannot take them.
      if (compiled || (stackSpill !== undefined && stackSpill.space !== spill)) return null;
      let worker: Worker;
      try {
        worker = new Worker(thread);
      } catch {
        return null;
      }
      worker.unref();
      opened++;
      const control = new Int32Array(new SharedArrayBuffer(4 * Ring.CONTROL_INTS));
      const ring = new Float64Array(new SharedArrayBuffer(8 * Ring.CHUNK_FLOATS * Ring.NEST_SLOTS));
      // The thread ends itself once it has answered; stopping it is for a parser that failed.
      const stop = () => {
        if (!running.delete(stop)) return;
        Atomics.store(control, Ring.CLOSED, 1);
        Atomics.notify(control, Ring.PUBLISHED);
      };
      running.add(stop);
      const open: Ring.NestOpen = {
        frameCount,
        metric,
        spillDir: stackSpill ? dir : null,
        maxStacks: stackSpill?.maxStacks,
        control,
        ring,
      };
      worker.postMessage(open);
      const answer = new Promise<NestedParts>((resolve, reject) => {
        worker.onmessage = (event: MessageEvent<NestAnswer>) => {
          running.delete(stop);
          const message = event.data;
          if (message.kind === "failed") {
            reject(new Error(`nesting thread: ${message.message}`));
            return;
          }
          // The thread's spilled runs are this space's now.
          const { columns, runs, deepStacks } = message.nested.stacks;
          const adopted: SpillFile[] = runs.map((run) => spill.adopt(run));
          resolve({ ...message.nested, stacks: { columns, runs: adopted, deepStacks } });
        };
        worker.onerror = (event) => {
          stop();
          reject(new Error(`nesting thread: ${event.message}`));
        };
      });
      answer.catch(() => {});
      const stalled = () => {
        stop();
        // It does not read the ring, so it would not see the stop: ended from here.
        worker.terminate();
        return new FlameoxError(
          "INTERNAL_ERROR",
          `The slice nesting thread stopped: no chunk applied in ${stallMs / 1000} s`,
        );
      };
      let published = 0;
      return {
        chunk() {
          // A slot is free once the thread has applied the chunk that was in it.
          let lastApplied = -1;
          let since = 0;
          for (;;) {
            if (Atomics.load(control, Ring.FAILED) !== 0)
              throw new FlameoxError("INTERNAL_ERROR", "The slice nesting thread failed");
            const applied = Atomics.load(control, Ring.APPLIED);
            if (published - applied < Ring.NEST_SLOTS) break;
            if (applied !== lastApplied) {
              lastApplied = applied;
              since = Date.now();
            } else if (Date.now() - since > stallMs) throw stalled();
            Atomics.wait(control, Ring.APPLIED, applied, Math.min(1000, stallMs));
          }
          const at = (published % Ring.NEST_SLOTS) * Ring.CHUNK_FLOATS;
          return ring.subarray(at, at + Ring.CHUNK_FLOATS);
        },
        send(count) {
          control[Ring.COUNTS + (published % Ring.NEST_SLOTS)] = count;
          Atomics.store(control, Ring.PUBLISHED, ++published);
          Atomics.notify(control, Ring.PUBLISHED);
        },
        finish() {
          Atomics.store(control, Ring.FINISHED, 1);
          Atomics.notify(control, Ring.PUBLISHED);
          // The answer comes once the last chunks are applied; a thread that stops applying them
          // is not waited for past the stall time.
          let lastApplied = Atomics.load(control, Ring.APPLIED);
          let since = Date.now();
          let watch: ReturnType<typeof setInterval> | undefined;
          const watchdog = new Promise<never>((_, reject) => {
            watch = setInterval(
              () => {
                const applied = Atomics.load(control, Ring.APPLIED);
                if (applied !== lastApplied) {
                  lastApplied = applied;
                  since = Date.now();
                } else if (Date.now() - since > stallMs) reject(stalled());
              },
              Math.min(1000, stallMs),
            );
          });
          return Promise.race([answer, watchdog]).finally(() => clearInterval(watch));
        },
        close: stop,
      };
    },
    closeAll() {
      for (const stop of [...running]) stop();
    },
  };
}
