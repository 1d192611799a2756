/**
 * The per-track stage between the merged spool and the rows: fed one track's events in
 * (start, seq) order, it gives X events without a duration the track's end, pairs B and
 * E events (BeginEndMatcher), and once a group of events with the same start is complete
 * and every B in it has its end, nests the group's slices longest first (SliceNester)
 * and writes the group's rows. This is exactly the order the whole-track passes use
 * (begin-end.ts, slice-nesting.ts), reached without holding the track: only events
 * waiting for a B's end or for the rest of their start group are kept, and past a budget
 * those wait on scratch space (pending-overflow.ts), so a B open for a whole track costs
 * disk, not memory.
 */
import { BeginEndMatcher, type BeginEndCounts } from "./begin-end-matcher.ts";
import { FLAG_MISSING_DUR, FLAG_UNMATCHED_BEGIN } from "./event-flags.ts";
import { KIND_BEGIN, KIND_COMPLETE, KIND_END, KIND_EVENT } from "./event-kinds.ts";
import { threadSpanNs } from "../common/time-ns.ts";
import type { Nester } from "./slice-nester.ts";
import type { TraceRowWriter } from "./trace-row-writer.ts";
import type { SpillSpace } from "../adapter.ts";
import { PendingEvents } from "./pending-events.ts";
import { PendingOverflow } from "./pending-overflow.ts";
import type { EventCursor } from "./run-codec.ts";

/** Waiting events held in memory before later ones overflow to scratch space (~80 bytes each). */
export const PENDING_EVENTS = 1 << 18;
const PENDING_ARGS_BYTES = 16 << 20;

export interface PendingBudget {
  spill: SpillSpace;
  /** Waiting events held in memory (tests lower it to exercise the overflow). */
  events?: number;
}

export class TrackSlicing {
  /** B events dropped because their unnestable track already had one open. */
  droppedBegins = 0;
  private unnestableTrack = false;
  private readonly pending = new PendingEvents();
  private readonly overflow: PendingOverflow;
  private readonly maxWaiting: number;
  private readonly matcher: BeginEndMatcher;
  /** Handles where the start time steps up: the first event of each later group. */
  private readonly boundaries: number[] = [];
  private boundaryAt = 0;
  private lastStart = Number.NEGATIVE_INFINITY;
  /** Between endTrack and the end of its drain. */
  private ending = false;
  private pausedDrain = false;
  private track = -1;
  private trackEndNs = 0;
  private readonly group: number[] = [];

  constructor(
    private readonly nester: Nester,
    counts: BeginEndCounts,
    /** A string id's value (for matching E names to B names). */
    private readonly nameOf: (id: number) => unknown,
    private readonly rows: TraceRowWriter,
    budget: PendingBudget,
    /**
     * Tracks whose slices do not nest: a B while one is open is dropped, as Trace
     * Processor's BeginLegacyUnnestable does for atrace S marks (Android's wakelocks
     * write any number of S before their one F).
     */
    private readonly unnestable: (track: number) => boolean = () => false,
  ) {
    this.overflow = new PendingOverflow(budget.spill);
    this.maxWaiting = Math.max(1, budget.events ?? PENDING_EVENTS);
    const p = this.pending;
    this.matcher = new BeginEndMatcher(counts, (handle, endNs, unmatched, endThreadNs) => {
      const k = handle - p.base;
      if (k < p.length) this.endBegin(k, endNs, unmatched, endThreadNs);
      else if (!this.overflow.end(handle, endNs, unmatched, endThreadNs))
        throw new Error("track slicing: a B's end found the B neither in memory nor held back");
    });
  }

  beginTrack(track: number, trackEndNs: number): void {
    this.track = track;
    this.trackEndNs = trackEndNs;
    this.lastStart = Number.NEGATIVE_INFINITY;
    this.unnestableTrack = this.unnestable(track);
    this.nester.beginTrack(track);
  }

  event(c: EventCursor): void {
    const v = c.v;
    const i = c.i;
    if (v.kind[i] === KIND_END) {
      // an E never becomes a row of its own
      this.matcher.end(v.start[i]!, this.nameOf(v.name[i]!), v.threadNs[i]!);
      this.drain();
      return;
    }
    if (this.unnestableTrack && v.kind[i] === KIND_BEGIN && this.matcher.openCount > 0) {
      this.droppedBegins++;
      return;
    }
    const p = this.pending;
    const start = v.start[i]!;
    if (v.kind[i] === KIND_EVENT && p.head === p.length && this.overflow.count === 0) {
      // A plain event with nothing held before it: nothing nests it and it waits for nothing, so
      // its row is written now rather than once a later start closes its group (the row order is
      // the same). Counter tracks take this path for every reading: the real Chromium Perfetto
      // trace's thread_time readings are 63% of its rows.
      this.lastStart = start;
      this.rows.addPlain(c, this.track);
      return;
    }
    const handle = this.hold(c);
    if (start > this.lastStart && handle > p.base + p.head) this.boundaries.push(handle);
    this.lastStart = start;
    if (v.kind[i] === KIND_BEGIN) this.matcher.begin(handle, this.nameOf(v.name[i]!));
    this.drain();
  }

  /** Holds the cursor's event in memory, or in the overflow past the budget; returns its handle. */
  private hold(c: EventCursor): number {
    const p = this.pending;
    const overflow = this.overflow;
    if (overflow.count > 0 || p.waiting >= this.maxWaiting || p.argsHeld >= PENDING_ARGS_BYTES) {
      const handle = p.base + p.length + overflow.count;
      overflow.add(c, handle);
      return handle;
    }
    const handle = p.push(c);
    this.settle(handle - p.base);
    return handle;
  }

  /** Moves the oldest overflowed event into memory; false when there is none. */
  private recall(): boolean {
    const c = this.overflow.next();
    if (c === null) return false;
    const p = this.pending;
    const handle = p.push(c);
    const k = handle - p.base;
    this.settle(k);
    return true;
  }

  /** What an event needs once in memory: an X without dur lasts until the track's end. */
  private settle(k: number): void {
    const p = this.pending;
    if (p.kind[k] === KIND_COMPLETE && (p.flags[k]! & FLAG_MISSING_DUR) !== 0)
      p.dur[k] = Math.max(0, this.trackEndNs - p.start[k]!);
  }

  private endBegin(k: number, endNs: number, unmatched: boolean, endThreadNs: number): void {
    const p = this.pending;
    p.dur[k] = Math.max(0, endNs - p.start[k]!);
    // The B held its thread clock reading; from here on it holds the slice's thread time.
    p.threadNs[k] = unmatched ? Number.NaN : threadSpanNs(p.threadNs[k]!, endThreadNs);
    if (unmatched) p.flags[k]! |= FLAG_UNMATCHED_BEGIN;
  }

  /**
   * Ends the track: open B events end at the track's end, and everything held is written.
   * Like `event`, it may pause with full row batches waiting (see `paused`).
   */
  endTrack(): void {
    this.matcher.finish(this.trackEndNs);
    this.ending = true;
    this.drain();
  }

  /**
   * True when the last call stopped writing because a row batch filled: the caller takes
   * the batches and calls `resume` until this is false. One E can resolve every event a
   * long-open B held back; without pausing, all their rows would be built in one call.
   */
  get paused(): boolean {
    return this.pausedDrain;
  }

  resume(): void {
    this.drain();
  }

  private finishTrack(): void {
    this.ending = false;
    this.nester.endTrack();
    const p = this.pending;
    p.base += p.length;
    p.head = 0;
    p.length = 0;
    p.compact();
    p.release();
    this.boundaries.length = 0;
    this.boundaryAt = 0;
    this.overflow.reset();
  }

  /** Deletes the overflow's scratch file (after a failure; endTrack does after each track). */
  dispose(): void {
    this.overflow.reset();
  }

  /** Nests and writes every complete, resolved group at the head. */
  private drain(): void {
    const p = this.pending;
    const ended = this.ending;
    this.pausedDrain = false;
    for (;;) {
      if (this.rows.ready) {
        this.pausedDrain = true;
        return;
      }
      if (p.head === p.length && !this.recall()) break;
      const headHandle = p.base + p.head;
      while (
        this.boundaryAt < this.boundaries.length &&
        this.boundaries[this.boundaryAt]! <= headHandle
      )
        this.boundaryAt++;
      const held = p.base + p.length + this.overflow.count;
      const groupEnd =
        this.boundaryAt < this.boundaries.length
          ? this.boundaries[this.boundaryAt]!
          : ended
            ? held
            : -1;
      if (groupEnd < 0 || this.matcher.oldestOpen < groupEnd) break;
      // The whole group must be in memory: it is nested longest first.
      while (p.base + p.length < groupEnd)
        if (!this.recall())
          throw new Error("track slicing: a start group ends past the events held");
      this.writeGroup(p.head, groupEnd - p.base);
      p.head = groupEnd - p.base;
      p.compact();
    }
    if (this.boundaryAt > 1024 && this.boundaryAt * 2 > this.boundaries.length) {
      this.boundaries.splice(0, this.boundaryAt);
      this.boundaryAt = 0;
    }
    p.compact();
    if (ended) this.finishTrack();
  }

  private writeGroup(from: number, to: number): void {
    const p = this.pending;
    const group = this.group;
    group.length = 0;
    for (let k = from; k < to; k++)
      if (p.kind[k] === KIND_COMPLETE || p.kind[k] === KIND_BEGIN) group.push(k);
    if (group.length > 1) group.sort((a, b) => p.dur[b]! - p.dur[a]! || p.seq[a]! - p.seq[b]!);
    for (const k of group) p.depth[k] = this.nester.push(p.frame[k]!, p.start[k]!, p.dur[k]!);
    const track = this.track;
    for (let k = from; k < to; k++) this.rows.add(p, k, track);
  }
}
