/**
 * Chrome's trace-event JSON (the format Perfetto UI and chrome://tracing open) from a
 * subject's `trace_events`: slices as complete "X" events, counters as "C", the rest as
 * thread-scoped instants, and process/thread names as metadata events. Times are
 * microseconds with nanosecond fractions, as the format defines them.
 */
import { FlameoxError } from "../../domain/errors.ts";
import type { Subject } from "../../analysis/subject.ts";
import { decodePart, partFiles } from "../../analysis/evidence-parts.ts";
import { traceEventRows } from "../../domain/trace-event-rows.ts";
import type { SnapshotHandle } from "../../storage/snapshot.ts";

const COLUMNS = [
  "track_id",
  "pid",
  "tid",
  "process_name",
  "thread_name",
  "name",
  "category",
  "phase",
  "ts_ns",
  "dur_ns",
  "args_json",
];

/** ns → µs without losing the ns digits a double can carry near the trace's start. */
const micros = (ns: bigint) => Number(ns / 1000n) + Number(ns % 1000n) / 1000;

export async function toChromeTrace(snapshot: SnapshotHandle, subject: Subject): Promise<string> {
  const generations = subject.generations.filter((g) => traceEventRows(g.tables) !== undefined);
  const files = partFiles(snapshot, "trace_events", generations).filter((f) => f.rows > 0);
  if (files.length === 0) {
    throw new FlameoxError(
      "EVIDENCE_UNAVAILABLE",
      `${subject.id} has no trace events to export as a Chrome trace; export its stacks as ` +
        `speedscope, pprof or collapsed instead`,
      {
        details: { field: "format" },
      },
    );
  }
  const events: string[] = [];
  const names = new Map<string, string>();
  for (const file of files) {
    const t = await decodePart(snapshot, file, "trace_events", COLUMNS);
    const col = Object.fromEntries(COLUMNS.map((c) => [c, t.getChild(c)]));
    for (let i = 0; i < t.numRows; i++) {
      const pid = idOf(col.pid?.get(i));
      const tid = idOf(col.tid?.get(i));
      const processName = col.process_name?.get(i) as string | null;
      const threadName = col.thread_name?.get(i) as string | null;
      if (processName)
        names.set(
          `p${pid}`,
          JSON.stringify({
            name: "process_name",
            ph: "M",
            pid,
            tid: 0,
            args: { name: processName },
          }),
        );
      if (threadName)
        names.set(
          `t${pid}:${tid}`,
          JSON.stringify({ name: "thread_name", ph: "M", pid, tid, args: { name: threadName } }),
        );
      const phase = String(col.phase?.get(i));
      const dur = col.dur_ns?.get(i) as bigint | number | null;
      const argsJson = col.args_json?.get(i) as string | null;
      const event: Record<string, unknown> = {
        name: col.name?.get(i),
        cat: col.category?.get(i) ?? "",
        pid,
        tid,
        ts: micros(BigInt(col.ts_ns!.get(i) as bigint)),
      };
      if (argsJson) event.args = safeArgs(argsJson);
      const asyncTrack = asyncTrackOf(col.track_id?.get(i) as string | null);
      if (asyncTrack && dur !== null && dur !== undefined) {
        // Async operations keep their own track: a nestable b/e pair with the operation's id,
        // so slices that overlap the thread's own slices are not forced to nest under them.
        const end = BigInt(col.ts_ns!.get(i) as bigint) + BigInt(dur);
        events.push(
          JSON.stringify({
            ...event,
            cat: asyncTrack.category,
            id2: { local: asyncTrack.id },
            ph: "b",
          }),
        );
        events.push(
          JSON.stringify({
            name: event.name,
            cat: asyncTrack.category,
            id2: { local: asyncTrack.id },
            pid,
            tid,
            ts: micros(end),
            ph: "e",
          }),
        );
        continue;
      }
      if (dur !== null && dur !== undefined)
        Object.assign(event, { ph: "X", dur: Number(dur) / 1000 });
      else if (phase === "C") event.ph = "C";
      else Object.assign(event, { ph: "i", s: "t" });
      events.push(JSON.stringify(event));
    }
  }
  return (
    `{"displayTimeUnit":"ns","otherData":{"exporter":"flameox","subject":` +
    `${JSON.stringify(subject.id)}},"traceEvents":[\n` +
    `${[...names.values(), ...events].join(",\n")}\n]}\n`
  );
}

/** Async operation tracks are named `async:<category>:<id>` by the trace importers. */
function asyncTrackOf(trackId: string | null): { category: string; id: string } | null {
  if (!trackId?.startsWith("async:")) return null;
  const at = trackId.lastIndexOf(":");
  return at > 6 ? { category: trackId.slice(6, at), id: trackId.slice(at + 1) } : null;
}

function idOf(value: unknown): number | string {
  if (value === null || value === undefined) return 0;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : String(value);
}

function safeArgs(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return { args_json: json };
  }
}
