/**
 * An independent, deliberately simple computation of per-name self wall time from raw
 * trace events, used to check the chrome-trace adapter. Instead of a nesting stack it
 * sweeps over sorted begin/end points and gives every stretch of time to the innermost
 * open slice (the latest begun). Only the *rules* are shared with the adapter (how B/E
 * pair up, how open-ended slices are closed), not the code.
 */
interface RawEvent {
  ph?: unknown;
  name?: unknown;
  cat?: unknown;
  pid?: unknown;
  tid?: unknown;
  ts?: unknown;
  dur?: unknown;
  id?: unknown;
  id2?: unknown;
  tts?: unknown;
  tdur?: unknown;
}

interface Interval {
  name: string;
  startUs: number;
  endUs: number;
  index: number;
  /**
   * Thread (CPU) time, ns: an X's tdur; a B's own E's tts less its tts; null when unknown or
   * unmatched.
   */
  threadNs: number | null;
}

const threadNsOf = (us: number): number | null =>
  Number.isFinite(us) && us >= 0 ? Math.round(us * 1000) : null;

const num = (v: unknown): number =>
  typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
const nameOf = (e: RawEvent): string => (typeof e.name === "string" ? e.name : "(unnamed)");
const text = (v: unknown): string | null =>
  v === undefined || v === null
    ? null
    : typeof v === "string"
      ? v
      : typeof v === "number"
        ? String(v)
        : JSON.stringify(v);

/**
 * The timeline a nestable async event (b/e/n) belongs to under the Trace Event Format:
 * its category and id, within its process for an `id2.local` id; null without an id (the
 * event then stays on its thread and is no slice).
 */
export function asyncTimeline(e: RawEvent): string | null {
  if (e.ph !== "b" && e.ph !== "e" && e.ph !== "n") return null;
  const id2 =
    typeof e.id2 === "object" && e.id2 !== null
      ? (e.id2 as { local?: unknown; global?: unknown })
      : {};
  const cat = typeof e.cat === "string" ? e.cat : "";
  if (text(id2.local) !== null) return `async ${text(e.pid) ?? "-"} ${cat} ${text(id2.local)}`;
  const id = text(id2.global) ?? text(e.id);
  return id === null ? null : `async * ${cat} ${id}`;
}
const opens = (e: RawEvent) => e.ph === "B" || (e.ph === "b" && asyncTimeline(e) !== null);
const closes = (e: RawEvent) => e.ph === "E" || (e.ph === "e" && asyncTimeline(e) !== null);

/**
 * Intervals per thread (and per async operation: b/e pair like B/E there), with B/E
 * paired and open-ended slices closed at the thread's last timestamp. Times are µs relative to the
 * trace's first timestamp: Kineto writes ts near
 * 1.7e15 µs, where a double cannot hold ts + dur to the nanosecond, but ts − first can.
 */
export function referenceIntervals(allEvents: readonly unknown[]): Map<string, Interval[]> {
  const firstTs =
    allEvents.map((e) => num((e as RawEvent | null)?.ts)).find((t) => Number.isFinite(t)) ?? 0;
  const events = allEvents.map((raw) => {
    const e = raw as RawEvent;
    if (typeof e !== "object" || e === null) return e;
    const ts = num(e.ts);
    return Number.isFinite(ts) ? { ...e, ts: ts - firstTs } : e;
  });
  const byThread = new Map<string, { events: { e: RawEvent; i: number }[]; lastUs: number }>();
  events.forEach((raw, i) => {
    const e = raw as RawEvent;
    if (typeof e !== "object" || e === null || typeof e.ph !== "string" || e.ph === "M") return;
    const ts = num(e.ts);
    if (!Number.isFinite(ts)) return;
    const key = asyncTimeline(e) ?? `${e.pid ?? "-"}:${e.tid ?? "-"}`;
    const thread = byThread.get(key) ?? { events: [], lastUs: Number.NEGATIVE_INFINITY };
    byThread.set(key, thread);
    thread.events.push({ e, i });
    let end = ts;
    if (e.ph === "X" && e.dur !== undefined) {
      const d = num(e.dur);
      if (Number.isFinite(d) && d > 0) end = ts + d;
    }
    thread.lastUs = Math.max(thread.lastUs, ts, end);
  });
  const result = new Map<string, Interval[]>();
  for (const [key, thread] of byThread) {
    const intervals: Interval[] = [];
    for (const { e, i } of thread.events) {
      if (e.ph !== "X") continue;
      const ts = num(e.ts);
      const d = e.dur === undefined ? thread.lastUs - ts : num(e.dur);
      intervals.push({
        name: nameOf(e),
        startUs: ts,
        endUs: ts + (Number.isFinite(d) && d > 0 ? d : 0),
        index: i,
        threadNs: threadNsOf(num(e.tdur)),
      });
    }
    const be = thread.events.filter(({ e }) => opens(e) || closes(e));
    be.sort((a, b) => num(a.e.ts) - num(b.e.ts) || a.i - b.i);
    const open: { e: RawEvent; i: number }[] = [];
    for (const item of be) {
      if (opens(item.e)) {
        open.push(item);
        continue;
      }
      const wanted = typeof item.e.name === "string" && item.e.name !== "" ? item.e.name : null;
      let at = -1;
      if (wanted === null) at = open.length - 1;
      else {
        for (let k = open.length - 1; k >= 0 && at < 0; k--) if (open[k]!.e.name === wanted) at = k;
        if (at < 0 && open.length > 0 && typeof open[open.length - 1]!.e.name !== "string")
          at = open.length - 1;
      }
      if (at < 0) continue; // unmatched E
      // The first one closed is the matched B; those inside it close unmatched.
      open.splice(at).forEach((closed, k) => {
        const threadNs = k === 0 ? threadNsOf(num(item.e.tts) - num(closed.e.tts)) : null;
        intervals.push({
          name: nameOf(closed.e),
          startUs: num(closed.e.ts),
          endUs: num(item.e.ts),
          index: closed.i,
          threadNs,
        });
      });
    }
    for (const closed of open)
      intervals.push({
        name: nameOf(closed.e),
        startUs: num(closed.e.ts),
        endUs: Math.max(num(closed.e.ts), thread.lastUs),
        index: closed.i,
        threadNs: null,
      });
    result.set(key, intervals);
  }
  return result;
}

/** Thread (CPU) time per slice, by the index of its X or B event (null: unknown). */
export function referenceThreadNs(events: readonly unknown[]): Map<number, number | null> {
  const out = new Map<number, number | null>();
  for (const intervals of referenceIntervals(events).values())
    for (const iv of intervals) out.set(iv.index, iv.threadNs);
  return out;
}

/** Self time (µs, float) per name by sweeping; also the number of slices per name. */
export interface ReferenceSelf {
  selfUs: number;
  slices: number;
  /**
   * Stretches of time credited to the name (each carries at most ~1 ns of rounding in the adapter).
   */
  segments: number;
}

export function referenceSelfByName(events: readonly unknown[]): Map<string, ReferenceSelf> {
  const out = new Map<string, ReferenceSelf>();
  const entry = (name: string) => {
    let e = out.get(name);
    if (!e) out.set(name, (e = { selfUs: 0, slices: 0, segments: 0 }));
    return e;
  };
  for (const intervals of referenceIntervals(events).values()) {
    // Rank = begin order: by start, longer first, then input order. Higher rank = more inner.
    intervals.sort((a, b) => a.startUs - b.startUs || b.endUs - a.endUs || a.index - b.index);
    const points: { t: number; rank: number; begin: boolean }[] = [];
    intervals.forEach((iv, rank) => {
      entry(iv.name).slices++;
      points.push({ t: iv.startUs, rank, begin: true }, { t: iv.endUs, rank, begin: false });
    });
    points.sort((a, b) => a.t - b.t);
    const active = new Set<number>();
    let previous = Number.NEGATIVE_INFINITY;
    for (const p of points) {
      if (active.size > 0 && p.t > previous) {
        const owner = entry(intervals[Math.max(...active)]!.name);
        owner.selfUs += p.t - previous;
        owner.segments++;
      }
      previous = p.t;
      if (p.begin) active.add(p.rank);
      else active.delete(p.rank);
    }
  }
  return out;
}
