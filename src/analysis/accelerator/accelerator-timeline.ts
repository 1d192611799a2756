/**
 * The accelerator-timeline recipe over a run's or artifact's `trace_events` (Nsight Systems
 * exports, torch.profiler/Kineto traces):
 *  - per device stream (the paged items): how busy it was, the union of its kernels,
 *    copies and sets over the window from the first device activity to the last, so
 *    overlapping work on one stream is counted once;
 *  - the longest idle gaps between a stream's activities (at least `minGapNs`), each with
 *    what the host threads were doing meanwhile: their top-level slices by time overlapping
 *    the gap;
 *  - the launch latency: from a runtime/driver API call to the start of the device work it
 *    launched, matched by correlation id.
 * Read straight from Parquet (no engine): a pass over the subject's events.
 */
import type { SnapshotHandle } from "../../storage/snapshot.ts";
import { type AnalysisResult, resultBase } from "../analysis-result.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { PartCache } from "../evidence-parts.ts";
import type { Subject } from "../subject.ts";
import {
  correlationOf,
  DEVICE_CATEGORIES,
  KERNEL_CATEGORIES,
  LAUNCH_CATEGORIES,
} from "./device-events.ts";
import { traceEventRows } from "../../domain/trace-event-rows.ts";

export const ACCELERATOR_RECIPE = "accelerator_timeline";
export const ACCELERATOR_RECIPE_VERSION = "1";
const MAX_GAPS = 20;
const HOST_NAMES_PER_GAP = 3;
const COLUMNS = [
  "track_id",
  "category",
  "name",
  "ts_ns",
  "dur_ns",
  "depth",
  "args_json",
  "process_name",
  "thread_name",
];

export interface StreamTimeline {
  track_id: string;
  /** The track's process name (Nsight: `GPU 0: NVIDIA A100`) and thread name (the stream). */
  device: string | null;
  stream: string | null;
  activities: number;
  kernels: number;
  busy_ns: number;
  /** busy_ns over the window from the first device activity of the subject to the last. */
  busy_fraction: number;
  idle_gaps: number;
  longest_gap_ns: number;
}

export interface IdleGap {
  track_id: string;
  /** Absolute, as trace_events ts_ns (int64 as a decimal string). */
  start_ns: string;
  end_ns: string;
  duration_ns: number;
  /** Host top-level slices overlapping the gap, by overlap. */
  host: { name: string; overlap_ns: number }[];
}

export interface LaunchLatency {
  matched: number;
  /** Device activities whose correlation id no launch call carries. */
  unmatched: number;
  min_ns: number;
  p50_ns: number;
  p90_ns: number;
  p99_ns: number;
  max_ns: number;
}

export type AcceleratorResult = AnalysisResult<StreamTimeline> & {
  window: { start_ns: string; end_ns: string; span_ns: number } | null;
  min_gap_ns: number;
  gaps: IdleGap[];
  launch_latency: LaunchLatency | null;
};

export interface AcceleratorOptions {
  limit: number;
  cursor?: string | null;
  minGapNs?: number;
}

interface Interval {
  start: number;
  end: number;
}

/** One event, times relative to the subject's origin (ns, exact below 2^53 of trace length). */
interface Event extends Interval {
  track: string;
  category: string;
  name: string;
  depth: number;
  correlation: string | null;
}

export async function analyzeAcceleratorTimeline(
  snapshot: SnapshotHandle,
  subject: Subject,
  options: AcceleratorOptions,
  parts: PartCache = new PartCache(0),
): Promise<AcceleratorResult> {
  const minGapNs = options.minGapNs ?? 1_000_000;
  const generations = subject.generations.filter((g) => (traceEventRows(g.tables) ?? 0) > 0);
  const binding = {
    query: `${ACCELERATOR_RECIPE}@${ACCELERATOR_RECIPE_VERSION}`,
    filters: { subject: subject.id, min_gap_ns: minGapNs },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const base = resultBase(
    { name: ACCELERATOR_RECIPE, version: ACCELERATOR_RECIPE_VERSION, claimLevel: "derived" },
    snapshot,
    subject,
    generations,
  );
  const decoded = await parts.partsOf(snapshot, "trace_events", generations, COLUMNS);
  let origin: bigint | null = null;
  for (const part of decoded) {
    const ts = part.arrow.getChild("ts_ns");
    for (let i = 0; i < part.rows; i++) {
      const t = BigInt(ts!.get(i) as bigint);
      if (origin === null || t < origin) origin = t;
    }
  }
  const events: Event[] = [];
  const names = new Map<string, { device: string | null; stream: string | null }>();
  for (const part of decoded) {
    const col = Object.fromEntries(COLUMNS.map((c) => [c, part.arrow.getChild(c)]));
    for (let i = 0; i < part.rows; i++) {
      const start = Number(BigInt(col.ts_ns!.get(i) as bigint) - origin!);
      const dur = col.dur_ns!.get(i) as bigint | number | null;
      const track = String(col.track_id!.get(i));
      const category = (col.category?.get(i) as string | null) ?? "";
      if (DEVICE_CATEGORIES.has(category) && !names.has(track))
        names.set(track, {
          device: (col.process_name?.get(i) as string | null) ?? null,
          stream: (col.thread_name?.get(i) as string | null) ?? null,
        });
      events.push({
        track,
        category,
        start,
        end: start + (dur === null || dur === undefined ? 0 : Number(dur)),
        name: String(col.name!.get(i)),
        depth: Number(col.depth!.get(i)),
        correlation: correlationOf(col.args_json?.get(i) as string | null),
      });
    }
  }
  const device = events.filter((e) => DEVICE_CATEGORIES.has(e.category));
  if (device.length === 0) {
    return {
      ...base,
      evidence:
        generations.length === 0
          ? {
              status: "unavailable",
              reason: "no_trace_events: no trace of this subject in the pinned commit",
              next_tool: "import_artifact",
            }
          : {
              status: "empty",
              reason:
                "the trace holds no device activity (CUDA kernels, copies or sets); nothing " +
                "ran on an accelerator, or it was not traced",
            },
      window: null,
      min_gap_ns: minGapNs,
      gaps: [],
      launch_latency: null,
      items: [],
      total: 0,
      returned: 0,
      truncated: false,
      next_cursor: null,
    };
  }
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.NEGATIVE_INFINITY;
  for (const e of device) {
    if (e.start < windowStart) windowStart = e.start;
    if (e.end > windowEnd) windowEnd = e.end;
  }
  const span = windowEnd - windowStart;
  const host = events
    .filter(
      (e) =>
        !DEVICE_CATEGORIES.has(e.category) &&
        !names.has(e.track) &&
        e.depth === 0 &&
        e.end > e.start,
    )
    .sort((a, b) => a.start - b.start);
  const streams: StreamTimeline[] = [];
  const gaps: IdleGap[] = [];
  const byTrack = Map.groupBy(device, (e) => e.track);
  for (const [track, list] of byTrack) {
    const busy = union(list);
    const trackGaps: Interval[] = [];
    for (let k = 1; k < busy.length; k++)
      if (busy[k]!.start - busy[k - 1]!.end >= minGapNs)
        trackGaps.push({ start: busy[k - 1]!.end, end: busy[k]!.start });
    const busyNs = busy.reduce((n, b) => n + (b.end - b.start), 0);
    streams.push({
      track_id: track,
      device: names.get(track)?.device ?? null,
      stream: names.get(track)?.stream ?? null,
      activities: list.length,
      kernels: list.filter((e) => KERNEL_CATEGORIES.has(e.category)).length,
      busy_ns: busyNs,
      busy_fraction: span > 0 ? busyNs / span : 1,
      idle_gaps: trackGaps.length,
      longest_gap_ns: trackGaps.reduce((m, g) => Math.max(m, g.end - g.start), 0),
    });
    for (const g of trackGaps)
      gaps.push({
        track_id: track,
        start_ns: String(origin! + BigInt(g.start)),
        end_ns: String(origin! + BigInt(g.end)),
        duration_ns: g.end - g.start,
        host: [],
      });
  }
  gaps.sort(
    (a, b) =>
      b.duration_ns - a.duration_ns ||
      a.track_id.localeCompare(b.track_id) ||
      a.start_ns.localeCompare(b.start_ns),
  );
  const shownGaps = gaps.slice(0, MAX_GAPS);
  for (const gap of shownGaps)
    gap.host = hostDuring(
      host,
      Number(BigInt(gap.start_ns) - origin!),
      Number(BigInt(gap.end_ns) - origin!),
    );
  streams.sort((a, b) => b.busy_ns - a.busy_ns || a.track_id.localeCompare(b.track_id));
  const page = streams.slice(offset, offset + options.limit);
  const end = offset + page.length;
  return {
    ...base,
    evidence: {
      status: base.limitations.length > 0 ? "partial" : "available",
      reason: `${streams.length} device streams, ${device.length} device activities`,
    },
    window: {
      start_ns: String(origin! + BigInt(windowStart)),
      end_ns: String(origin! + BigInt(windowEnd)),
      span_ns: span,
    },
    min_gap_ns: minGapNs,
    gaps: shownGaps,
    launch_latency: launchLatency(events, device),
    items: page,
    total: streams.length,
    returned: page.length,
    truncated: end < streams.length,
    next_cursor: end < streams.length ? encodeCursor(binding, end) : null,
  };
}

/** The union of intervals, in time order. */
function union(list: readonly Interval[]): Interval[] {
  const sorted = [...list].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Interval[] = [];
  for (const e of sorted) {
    const last = out[out.length - 1];
    if (last && e.start <= last.end) last.end = Math.max(last.end, e.end);
    else out.push({ start: e.start, end: e.end });
  }
  return out;
}

function hostDuring(
  host: readonly Event[],
  start: number,
  end: number,
): { name: string; overlap_ns: number }[] {
  const byName = new Map<string, number>();
  for (const e of host) {
    if (e.start >= end) break;
    const overlap = Math.min(end, e.end) - Math.max(start, e.start);
    if (overlap > 0) byName.set(e.name, (byName.get(e.name) ?? 0) + overlap);
  }
  return [...byName]
    .map(([name, overlap_ns]) => ({ name, overlap_ns }))
    .sort((a, b) => b.overlap_ns - a.overlap_ns || a.name.localeCompare(b.name))
    .slice(0, HOST_NAMES_PER_GAP);
}

function launchLatency(events: readonly Event[], device: readonly Event[]): LaunchLatency | null {
  const launches = new Map<string, number>();
  // The earliest call with the id, whatever order the parts were read in.
  for (const e of events) {
    if (!LAUNCH_CATEGORIES.has(e.category) || e.correlation === null) continue;
    const at = launches.get(e.correlation);
    if (at === undefined || e.start < at) launches.set(e.correlation, e.start);
  }
  if (launches.size === 0) return null;
  const latencies: number[] = [];
  let unmatched = 0;
  for (const e of device) {
    const at = e.correlation === null ? undefined : launches.get(e.correlation);
    if (at === undefined) unmatched++;
    else latencies.push(e.start - at);
  }
  if (latencies.length === 0)
    return { matched: 0, unmatched, min_ns: 0, p50_ns: 0, p90_ns: 0, p99_ns: 0, max_ns: 0 };
  latencies.sort((a, b) => a - b);
  // Nearest-rank percentiles: each is a latency that was observed.
  const rank = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(p * latencies.length) - 1))]!;
  return {
    matched: latencies.length,
    unmatched,
    min_ns: latencies[0]!,
    p50_ns: rank(0.5),
    p90_ns: rank(0.9),
    p99_ns: rank(0.99),
    max_ns: latencies[latencies.length - 1]!,
  };
}
