/**
 * The operator-breakdown recipe over a torch.profiler (Kineto) trace's `trace_events`: per
 * operator name (`cpu_op` slices), the calls, the CPU time (total: each call once however
 * deeply the same operator nests inside itself; self: less the operators called from it)
 * and the GPU time its launches caused. A kernel, copy or set is attributed through its
 * correlation id to the runtime call that launched it, and that call to the innermost
 * operator open on its thread at that moment (`gpu_self_ns`); `gpu_total_ns` also counts
 * the launches of the operators it called. Read straight from Parquet (no engine).
 */
import type { SnapshotHandle } from "../../storage/snapshot.ts";
import { type AnalysisResult, resultBase } from "../analysis-result.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { PartCache } from "../evidence-parts.ts";
import type { Subject } from "../subject.ts";
import { correlationOf, DEVICE_CATEGORIES, LAUNCH_CATEGORIES } from "./device-events.ts";
import { traceEventRows } from "../../domain/trace-event-rows.ts";

export const OPERATORS_RECIPE = "operator_breakdown";
export const OPERATORS_RECIPE_VERSION = "1";
const OPERATOR_CATEGORIES = new Set(["cpu_op"]);
const COLUMNS = ["track_id", "category", "name", "ts_ns", "dur_ns", "args_json"];

export interface OperatorRow {
  name: string;
  calls: number;
  cpu_total_ns: number;
  cpu_self_ns: number;
  gpu_self_ns: number;
  gpu_total_ns: number;
  /** Device activities attributed to the operator's own launches. */
  launches: number;
}

export type OperatorsResult = AnalysisResult<OperatorRow> & {
  totals: {
    operators: number;
    calls: number;
    gpu_ns: number;
    gpu_unattributed_ns: number;
    device_activities: number;
  };
};

export interface OperatorsOptions {
  limit: number;
  cursor?: string | null;
}

interface Slice {
  track: string;
  category: string;
  name: string;
  start: number;
  end: number;
  correlation: string | null;
}

interface Call {
  name: string;
  end: number;
  duration: number;
  /** Durations of the operators called directly from this one. */
  children: number;
  /** GPU time of its own launches and of its callees' (filled after the sweep). */
  gpuSelf: number;
  gpuTotal: number;
  parent: Call | null;
}

export async function analyzeOperators(
  snapshot: SnapshotHandle,
  subject: Subject,
  options: OperatorsOptions,
  parts: PartCache = new PartCache(0),
): Promise<OperatorsResult> {
  const generations = subject.generations.filter((g) => (traceEventRows(g.tables) ?? 0) > 0);
  const binding = {
    query: `${OPERATORS_RECIPE}@${OPERATORS_RECIPE_VERSION}`,
    filters: { subject: subject.id },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const base = resultBase(
    { name: OPERATORS_RECIPE, version: OPERATORS_RECIPE_VERSION, claimLevel: "derived" },
    snapshot,
    subject,
    generations,
  );
  const slices = await readSlices(snapshot, generations, parts);
  const device = slices.filter((s) => DEVICE_CATEGORIES.has(s.category));
  const gpuByCorrelation = new Map<string, number>();
  for (const d of device)
    if (d.correlation !== null)
      gpuByCorrelation.set(
        d.correlation,
        (gpuByCorrelation.get(d.correlation) ?? 0) + (d.end - d.start),
      );
  const launchesByCorrelation = new Map<string, number>();
  for (const d of device)
    if (d.correlation !== null)
      launchesByCorrelation.set(d.correlation, (launchesByCorrelation.get(d.correlation) ?? 0) + 1);
  const rows = new Map<string, OperatorRow>();
  const row = (name: string) =>
    rows.get(name) ??
    (rows.set(name, {
      name,
      calls: 0,
      cpu_total_ns: 0,
      cpu_self_ns: 0,
      gpu_self_ns: 0,
      gpu_total_ns: 0,
      launches: 0,
    }),
    rows.get(name)!);
  let attributed = 0;
  const host = slices.filter(
    (s) => OPERATOR_CATEGORIES.has(s.category) || LAUNCH_CATEGORIES.has(s.category),
  );
  for (const list of Map.groupBy(host, (s) => s.track).values()) {
    // Outer slices first at a shared start, so a callee opens inside its caller.
    list.sort((a, b) => a.start - b.start || b.end - a.end);
    let open: Call | null = null;
    const close = (until: number) => {
      while (open !== null && open.end <= until) {
        const done: Call = open;
        const r = row(done.name);
        r.cpu_self_ns += done.duration - done.children;
        r.gpu_self_ns += done.gpuSelf;
        // A call inside another call of the same operator is already in that call's totals.
        if (!within(done.parent, done.name)) r.gpu_total_ns += done.gpuTotal;
        if (done.parent) done.parent.gpuTotal += done.gpuTotal;
        open = done.parent;
      }
    };
    for (const s of list) {
      close(s.start);
      if (OPERATOR_CATEGORIES.has(s.category)) {
        const r = row(s.name);
        r.calls++;
        const duration = s.end - s.start;
        if (!within(open, s.name)) r.cpu_total_ns += duration;
        if (open) open.children += duration;
        open = {
          name: s.name,
          end: s.end,
          duration,
          children: 0,
          gpuSelf: 0,
          gpuTotal: 0,
          parent: open,
        };
        continue;
      }
      const gpu = s.correlation === null ? undefined : gpuByCorrelation.get(s.correlation);
      if (gpu === undefined || open === null) continue;
      open.gpuSelf += gpu;
      open.gpuTotal += gpu;
      row(open.name).launches += launchesByCorrelation.get(s.correlation!)!;
      attributed += gpu;
      // A correlation id launches once: a second call with it must not count its work again.
      gpuByCorrelation.delete(s.correlation!);
    }
    close(Number.POSITIVE_INFINITY);
  }
  const gpuNs = device.reduce((n, d) => n + (d.end - d.start), 0);
  const ranked = [...rows.values()].sort(
    (a, b) =>
      b.cpu_total_ns - a.cpu_total_ns ||
      b.gpu_total_ns - a.gpu_total_ns ||
      a.name.localeCompare(b.name),
  );
  const page = ranked.slice(offset, offset + options.limit);
  const end = offset + page.length;
  return {
    ...base,
    evidence:
      ranked.length === 0
        ? generations.length === 0
          ? {
              status: "unavailable",
              reason: "no_trace_events: no trace of this subject in the pinned commit",
              next_tool: "import_artifact",
            }
          : {
              status: "empty",
              reason:
                "the trace holds no operator (cpu_op) slices; it is not a torch.profiler " +
                "trace, or operators were not recorded",
            }
        : {
            status: base.limitations.length > 0 ? "partial" : "available",
            reason: `${ranked.length} operators`,
          },
    totals: {
      operators: ranked.length,
      calls: ranked.reduce((n, r) => n + r.calls, 0),
      gpu_ns: gpuNs,
      gpu_unattributed_ns: gpuNs - attributed,
      device_activities: device.length,
    },
    items: page,
    total: ranked.length,
    returned: page.length,
    truncated: end < ranked.length,
    next_cursor: end < ranked.length ? encodeCursor(binding, end) : null,
  };
}

function within(call: Call | null, name: string): boolean {
  for (let c = call; c !== null; c = c.parent) if (c.name === name) return true;
  return false;
}

async function readSlices(
  snapshot: SnapshotHandle,
  generations: Subject["generations"],
  parts: PartCache,
): Promise<Slice[]> {
  const decoded = await parts.partsOf(snapshot, "trace_events", generations, COLUMNS);
  let origin: bigint | null = null;
  for (const part of decoded) {
    const ts = part.arrow.getChild("ts_ns")!;
    for (let i = 0; i < part.rows; i++) {
      const t = BigInt(ts.get(i) as bigint);
      if (origin === null || t < origin) origin = t;
    }
  }
  const out: Slice[] = [];
  for (const part of decoded) {
    const col = Object.fromEntries(COLUMNS.map((c) => [c, part.arrow.getChild(c)]));
    for (let i = 0; i < part.rows; i++) {
      const category = (col.category?.get(i) as string | null) ?? "";
      if (
        !OPERATOR_CATEGORIES.has(category) &&
        !LAUNCH_CATEGORIES.has(category) &&
        !DEVICE_CATEGORIES.has(category)
      )
        continue;
      const dur = col.dur_ns!.get(i) as bigint | number | null;
      if (dur === null || dur === undefined) continue;
      const start = Number(BigInt(col.ts_ns!.get(i) as bigint) - origin!);
      out.push({
        track: String(col.track_id!.get(i)),
        category,
        name: String(col.name!.get(i)),
        start,
        end: start + Number(dur),
        correlation: OPERATOR_CATEGORIES.has(category)
          ? null
          : correlationOf(col.args_json?.get(i) as string | null),
      });
    }
  }
  return out;
}
