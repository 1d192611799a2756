/**
 * Which `nsys stats --format csv` report a file is, told by its header row: the exact set of
 * column names each report script writes. `nsys stats` may print a preamble before it
 * ("Generating SQLite file …", "Processing [x.sqlite] with [cuda_gpu_trace.py]…", NOTICE
 * lines), so the header is looked for among the first lines.
 *
 * Column names changed across releases: 2020–2021 reports wrote `Time(%)`, `Average`,
 * `Minimum`, `Maximum` and `Operations`; 2022 and later write `Time (%)`, `Avg (ns)`,
 * `Med (ns)`, `Min (ns)`, `Max (ns)`, `StdDev (ns)`, with `Instances` (kernels, NVTX),
 * `Num Calls` (API, OS runtime) or `Count` (memory operations). `--timeunit` changes the
 * unit in parentheses. A column without a unit is in nanoseconds, as the old reports were.
 */

export type TimeUnit = "ns" | "us" | "ms" | "s";

/** Nanoseconds per unit a header may name in parentheses. */
export const NS_PER: Record<TimeUnit, number> = {
  ns: 1,
  us: 1_000,
  ms: 1_000_000,
  s: 1_000_000_000,
};

/** What a summary column holds; `share` is the report's Time (%). */
export type SummaryField =
  | "share"
  | "total"
  | "count"
  | "mean"
  | "median"
  | "min"
  | "max"
  | "stddev"
  | "name"
  | "style";

export interface SummaryHeader {
  kind: "summary";
  /**
   * The report script's name, or null when the header fits more than one and the file name does not
   * say.
   */
  report: string | null;
  /** The reports whose header this is. */
  candidates: string[];
  fields: Map<number, { field: SummaryField; unit: TimeUnit | null; header: string }>;
}

export interface TraceHeader {
  kind: "trace";
  report: "cuda_gpu_trace";
  /**
   * Column index by normalized name (start, duration, corrid, grdx, …, device, ctx, greenctx, strm,
   * name).
   */
  columns: Map<string, number>;
  startUnit: TimeUnit;
  durationUnit: TimeUnit;
  /** The unit of the Bytes column as written (B, KB, MB), when there is one. */
  sizeUnit: string | null;
  sizeColumn: string | null;
}

export type ReportHeader = SummaryHeader | TraceHeader;

export interface FoundHeader {
  header: ReportHeader;
  /** 1-based line of the header in the file. */
  line: number;
}

/** Reports by their older script names (nsys 2020–2021). */
const RENAMED: Record<string, string> = {
  gputrace: "cuda_gpu_trace",
  gpukernsum: "cuda_gpu_kern_sum",
  cudaapisum: "cuda_api_sum",
  gpumemtimesum: "cuda_gpu_mem_time_sum",
  osrtsum: "osrt_sum",
  nvtxsum: "nvtx_sum",
  nvtxppsum: "nvtx_sum",
};
const REPORT_NAMES = [
  "cuda_gpu_trace",
  "cuda_gpu_kern_sum",
  "cuda_api_sum",
  "cuda_gpu_mem_time_sum",
  "osrt_sum",
  "nvtx_sum",
  ...Object.keys(RENAMED),
];
const MAX_HEADER_LINE = 40;

/** `Avg (ns)` → { base: "avg", unit: "ns" }; quotes and spacing do not matter. */
export function splitHeader(raw: string): { base: string; unit: string | null } {
  const text = raw.trim().replace(/^"(.*)"$/, "$1");
  const match = /^(.*?)\s*\(([^)]*)\)\s*$/.exec(text);
  const base = (match ? match[1]! : text).toLowerCase().replace(/[\s_]+/g, "");
  return { base, unit: match ? match[2]!.trim() : null };
}

const timeUnit = (unit: string | null): TimeUnit | null =>
  unit === null
    ? "ns"
    : ((["ns", "us", "ms", "s"] as const).find((u) => u === unit.toLowerCase()) ?? null);

const SUMMARY_FIELD: Record<string, SummaryField> = {
  "time(%)": "share",
  totaltime: "total",
  instances: "count",
  numcalls: "count",
  calls: "count",
  count: "count",
  operations: "count",
  avg: "mean",
  average: "mean",
  med: "median",
  median: "median",
  min: "min",
  minimum: "min",
  max: "max",
  maximum: "max",
  stddev: "stddev",
  name: "name",
  operation: "name",
  range: "name",
  style: "style",
};

function summaryHeader(cells: string[], displayName: string): SummaryHeader | null {
  const fields = new Map<number, { field: SummaryField; unit: TimeUnit | null; header: string }>();
  cells.forEach((cell, i) => {
    const { base, unit } = splitHeader(cell);
    // "Time (%)" keeps its parenthesis: it is the column's name, not a unit.
    const key = unit === "%" ? `${base}(%)` : base;
    const field = SUMMARY_FIELD[key];
    if (field === undefined) return;
    const isTime =
      field === "total" ||
      field === "mean" ||
      field === "median" ||
      field === "min" ||
      field === "max" ||
      field === "stddev";
    fields.set(i, { field, unit: isTime ? timeUnit(unit) : null, header: cell.trim() });
  });
  const has = (f: SummaryField) => [...fields.values()].some((v) => v.field === f);
  // A summary report has its share, total, count and a name; every cell must be one we know.
  if (
    fields.size !== cells.length ||
    !has("share") ||
    !has("total") ||
    !has("count") ||
    !has("name")
  )
    return null;
  if (
    [...fields.values()].some(
      (v) =>
        v.unit === null &&
        v.field !== "share" &&
        v.field !== "count" &&
        v.field !== "name" &&
        v.field !== "style",
    )
  )
    return null;
  const countHeader = splitHeader(
    cells[[...fields.entries()].find(([, v]) => v.field === "count")![0]]!,
  ).base;
  const nameHeader = splitHeader(
    cells[[...fields.entries()].find(([, v]) => v.field === "name")![0]]!,
  ).base;
  const candidates =
    nameHeader === "range"
      ? ["nvtx_sum"]
      : nameHeader === "operation"
        ? ["cuda_gpu_mem_time_sum"]
        : countHeader === "instances"
          ? ["cuda_gpu_kern_sum"]
          : ["cuda_api_sum", "osrt_sum"];
  const named = reportInName(displayName);
  const report =
    named !== null && candidates.includes(named)
      ? named
      : candidates.length === 1
        ? candidates[0]!
        : null;
  return { kind: "summary", report, candidates, fields };
}

function traceHeader(cells: string[]): TraceHeader | null {
  const columns = new Map<string, number>();
  const units = new Map<string, string | null>();
  cells.forEach((cell, i) => {
    const { base, unit } = splitHeader(cell);
    columns.set(base, i);
    units.set(base, unit);
  });
  for (const required of ["start", "duration", "name"]) if (!columns.has(required)) return null;
  // A GPU trace row says where it ran; pipit-style event tables (Timestamp, Event Type) do not.
  if (!columns.has("strm") && !columns.has("corrid")) return null;
  const startUnit = timeUnit(units.get("start") ?? null);
  const durationUnit = timeUnit(units.get("duration") ?? null);
  if (startUnit === null || durationUnit === null) return null;
  const sizeColumn = columns.has("bytes") ? "bytes" : null;
  return {
    kind: "trace",
    report: "cuda_gpu_trace",
    columns,
    startUnit,
    durationUnit,
    sizeUnit: sizeColumn === null ? null : (units.get("bytes") ?? "B"),
    sizeColumn,
  };
}

/** The report a file name names (`report1_cuda_api_sum.csv`), by its current script name. */
export function reportInName(displayName: string): string | null {
  const lower = displayName.toLowerCase();
  const found = REPORT_NAMES.filter((r) => lower.includes(r)).sort(
    (a, b) => b.length - a.length,
  )[0];
  return found === undefined ? null : (RENAMED[found] ?? found);
}

/**
 * Header cells of one line, split on commas outside quotes (header names hold no commas, some tools
 * quote them).
 */
function headerCells(line: string): string[] {
  return line.split(",").map((c) => c.trim().replace(/^"(.*)"$/, "$1"));
}

/** The first line among the first few that is a known report header. */
export function findReportHeader(head: string, displayName: string): FoundHeader | null {
  const lines = head.replace(/^\uFEFF/, "").split(/\r?\n/, MAX_HEADER_LINE + 1);
  // The last line of a head may be cut short.
  const complete = head.length >= 64 * 1024 ? lines.slice(0, -1) : lines;
  for (let i = 0; i < Math.min(complete.length, MAX_HEADER_LINE); i++) {
    const line = complete[i]!;
    if (!line.includes(",")) continue;
    const cells = headerCells(line);
    const header = traceHeader(cells) ?? summaryHeader(cells, displayName);
    if (header !== null) return { header, line: i + 1 };
  }
  return null;
}
