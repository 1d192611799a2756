/**
 * Holds a trace's events until they can be nested, in bounded memory. Events are added
 * to an in-memory run (TraceColumns); when the run holds RUN_EVENTS events or
 * RUN_ARGS_BYTES of args, it is sorted by (track, start, seq) and spilled as a run file.
 * `drain()` merges the runs back into one stream in that order; a trace of one run (most
 * traces) is read from the columns themselves, not spilled. Memory is one run while events
 * are added (two given a RunOffload: a full run is written on another thread while this one
 * fills the next), then one read block per run while they are merged.
 */
import type { RunOffload, SpillFile, SpillSpace } from "../adapter.ts";
import { TraceColumns, type TraceColumnParts } from "./trace-columns.ts";
import { MemorySpillSpace } from "./memory-spill.ts";
import { ColumnsCursor } from "./columns-cursor.ts";
import { RunCursor, RunWriter, type EventCursor } from "./run-codec.ts";
import { RunMerge } from "./run-merge.ts";
import { runOrder } from "./run-order.ts";

/** Events per run: ~50 bytes each in columns, so a run is ~25 MB before args. */
export const RUN_EVENTS = 1 << 19;
export const RUN_ARGS_BYTES = 32 << 20;

export interface SpoolOptions {
  spill?: SpillSpace;
  runEvents?: number;
  /**
   * Events the trace is expected to hold (a hint, from its size): the first run's columns are made
   * that large at once, up to a run, instead of doubling from 1,024 events.
   */
  expectedEvents?: number;
  runArgsBytes?: number;
  /**
   * Events of a track waiting for a B's end held in memory before the rest overflow (see
   * track-slicing.ts).
   */
  pendingEvents?: number;
  /** Writes full runs on another thread while this one scans on (see `runsWritten`). */
  offload?: RunOffload;
}

export class EventSpool {
  /**
   * The run being filled; an index from `add()` is valid until the next `add()`, and so is this
   * object (a run handed to another thread leaves new columns here).
   */
  cols: TraceColumns;
  /** Events added so far: the next event's event_index. */
  length = 0;
  private readonly runs: SpillFile[] = [];
  private readonly writer = new RunWriter();
  readonly spill: SpillSpace;
  readonly pendingEvents: number | undefined;
  private readonly runEvents: number;
  private readonly runArgsBytes: number;
  private readonly offload: RunOffload | null;
  /** The run being written on another thread, if any. */
  private writing: Promise<void> | null = null;
  /** Columns a run written on another thread came back in, emptied for the next one. */
  private spare: TraceColumns | null = null;
  private offloadFailure: unknown = null;
  /** Set once no more runs are filled (`runsWritten`, `dispose`): a spare coming late is let go. */
  private ended = false;

  constructor(options: SpoolOptions = {}) {
    this.spill = options.spill ?? new MemorySpillSpace();
    this.pendingEvents = options.pendingEvents;
    this.runEvents = Math.max(1, options.runEvents ?? RUN_EVENTS);
    this.cols = new TraceColumns(firstRunCapacity(options.expectedEvents, this.runEvents));
    this.runArgsBytes = options.runArgsBytes ?? RUN_ARGS_BYTES;
    this.offload = options.offload ?? null;
    // A trace expected to fill more than one run needs a second run's columns at its first spill,
    // while the first is written elsewhere: made on the other thread meanwhile, not here then.
    if (options.expectedEvents !== undefined && options.expectedEvents > this.runEvents)
      this.offload?.spare?.(Math.min(this.runEvents, RUN_EVENTS))?.then(
        (parts) => {
          if (parts !== undefined && this.spare === null && !this.ended)
            this.spare = TraceColumns.fromParts(parts as TraceColumnParts);
        },
        () => {
          // Not made: the first spill makes its own.
        },
      );
  }

  /** Adds an event (skipped until its fields say otherwise); returns its index in `cols`. */
  add(): number {
    if (this.cols.length >= this.runEvents || this.cols.args.bytes >= this.runArgsBytes)
      this.spillRun();
    return this.cols.add(this.length++);
  }

  /** The next event_index, for an event kept elsewhere (a counter reading's own table). */
  reserve(): number {
    return this.length++;
  }

  /**
   * Adds up to `n` events at once, fewer when the run fills first; returns where they are
   * in `cols` and how many. Every column of them is the caller's to set.
   */
  extend(n: number): { at: number; count: number } {
    if (this.cols.length >= this.runEvents || this.cols.args.bytes >= this.runArgsBytes)
      this.spillRun();
    const count = Math.min(n, this.runEvents - this.cols.length);
    const at = this.cols.extend(count, this.length);
    this.length += count;
    return { at, count };
  }

  /** Runs spilled so far (for tests and diagnostics). */
  get runCount(): number {
    return this.runs.length;
  }

  /**
   * The events in (track, start, seq) order; nothing may be added afterwards, and `dispose` empties
   * the spool.
   */
  drain(): RunMerge {
    if (this.writing !== null)
      throw new Error("event spool: drained while a run is being written (await runsWritten)");
    const cursors: EventCursor[] = this.runs.map((file) => new RunCursor(file));
    if (this.cols.length > 0) cursors.push(new ColumnsCursor(this.cols, runOrder(this.cols)));
    return new RunMerge(cursors);
  }

  /** Deletes the spilled runs and the run in memory. */
  dispose(): void {
    for (const file of this.runs) file.dispose();
    this.runs.length = 0;
    this.cols.clear();
    this.spare = null;
    this.ended = true;
  }

  /**
   * Resolves once every run handed to another thread is written (rejects with the first failure
   * of one); `drain` needs it first, and nothing is added after it. A trace of several runs then
   * has its last run spilled too, and the columns a written run came back in are let go: the
   * merge reads every run a block at a time and holds no run's columns. Both were ~42 MB each
   * (a run of 512K events and its args), held through the whole row phase: in a heap snapshot
   * of the Chromium startup trace repeated to 600 MB they were 84 of the parser thread's 213 MB.
   */
  async runsWritten(): Promise<void> {
    while (this.writing !== null) await this.writing;
    if (this.offloadFailure !== null) throw this.offloadFailure;
    this.spare = null;
    this.ended = true;
    if (this.runs.length === 0 || this.cols.length === 0) return;
    const file = this.spill.create();
    this.runs.push(file);
    this.writer.write(file, this.cols, runOrder(this.cols));
    this.cols = new TraceColumns(1);
  }

  private spillRun(): void {
    if (this.offloadFailure !== null) throw this.offloadFailure;
    const file = this.spill.create();
    this.runs.push(file);
    // One run at a time goes to the other thread: while it is written there, this thread fills
    // the next one (two runs in memory at most); a run that fills before the last is written is
    // written here.
    const written = this.writing === null ? (this.offload?.write(file, this.cols) ?? null) : null;
    if (written !== null) {
      // The next run fills the columns the last written run came back in, or new ones made whole
      // at once (they would grow to this anyway).
      const spare = this.spare;
      this.spare = null;
      this.cols = spare ?? new TraceColumns(Math.min(this.runEvents, RUN_EVENTS));
      this.writing = written.then(
        (returned) => {
          this.writing = null;
          if (returned !== undefined) {
            this.spare = TraceColumns.fromParts(returned as TraceColumnParts);
            this.spare.clear();
          }
        },
        (error: unknown) => {
          this.offloadFailure ??= error;
          this.writing = null;
        },
      );
      return;
    }
    this.writer.write(file, this.cols, runOrder(this.cols));
    this.cols.clear();
  }
}

/**
 * Events the first run's columns are made for: 1,024 without a hint, else the expected events up
 * to a run. Doubling from 1,024 to a full run copies and refills every column ten times: 280 ms of
 * a 4.3 s parser-thread profile (the Chromium startup trace repeated to 40 MB), against 118 ms to
 * make them whole at once.
 */
function firstRunCapacity(expectedEvents: number | undefined, runEvents: number): number {
  if (expectedEvents === undefined || !(expectedEvents > FIRST_RUN_EVENTS)) return FIRST_RUN_EVENTS;
  return Math.min(Math.ceil(expectedEvents), runEvents, RUN_EVENTS);
}

const FIRST_RUN_EVENTS = 1024;
