/**
 * Normalized evidence tables: the columns each adapter fills and the corpus stores as
 * Parquet. Provenance columns (run, artifact, generation, extractor) are appended by
 * the publisher, never by adapters, so every stored row carries them uniformly.
 *
 * Time columns are integer nanoseconds. Absolute timestamps (`*_ts_ns`) can exceed
 * 2^53, so they are int64 and held as bigint; durations and counts fit in a double.
 */
export type ColumnType = "utf8" | "int32" | "int64" | "float64" | "bool" | "list_utf8";

export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  readonly nullable: boolean;
}

export interface TableSchema {
  readonly name: EvidenceTableName;
  /** Bumped (minor) when nullable columns are added; readers union by name. */
  readonly schemaId: string;
  readonly columns: readonly ColumnSpec[];
}

const c = (name: string, type: ColumnType, nullable = false): ColumnSpec => ({
  name,
  type,
  nullable,
});

export const EVIDENCE_TABLE_NAMES = [
  "frames",
  "frame_measurements",
  "call_edges",
  "stacks",
  "trace_events",
  "trace_counters",
  "tracks",
  "measurements",
  "otel_resources",
  "otel_scopes",
  "otel_spans",
  "otel_span_events",
  "otel_span_links",
  "test_results",
  "coverage_lines",
] as const;
export type EvidenceTableName = (typeof EVIDENCE_TABLE_NAMES)[number];

/**
 * Metric of a frame measurement: sampled CPU time or wall time of trace slices (ns), and
 * the sample types of memory and lock profiles (pprof names: bytes, counts, ns), and
 * hardware counter events sampled by period (perf: cycles, instructions; counts), and the
 * events Valgrind's simulators count exactly (callgrind: data reads and writes, cache
 * misses per level — L1 and last level — and conditional and indirect branches and their
 * mispredictions; counts), and operator calls of an execution trace that records no
 * times (PyTorch ET; counts).
 */
export const FRAME_METRICS = [
  "cpu_time",
  "wall_time",
  "samples",
  "alloc_space",
  "alloc_objects",
  "inuse_space",
  "inuse_objects",
  "contentions",
  "delay",
  "cycles",
  "instructions",
  "data_reads",
  "data_writes",
  "l1_instruction_misses",
  "l1_data_read_misses",
  "l1_data_write_misses",
  "ll_instruction_misses",
  "ll_data_read_misses",
  "ll_data_write_misses",
  "conditional_branches",
  "conditional_branch_misses",
  "indirect_branches",
  "indirect_branch_misses",
  "calls",
] as const;
export type FrameMetric = (typeof FRAME_METRICS)[number];

/**
 * Which metric an analysis reads when none is asked for: CPU time first, then what pprof
 * shows by default for memory and lock profiles — in-use space for heaps (not the
 * alphabetically first alloc_objects), allocated space for allocation-only ones, delay for
 * contention; otherwise the first available name.
 */
const DEFAULT_METRIC_ORDER: readonly FrameMetric[] = [
  "cpu_time",
  "inuse_space",
  "alloc_space",
  "delay",
];

export function defaultFrameMetric(available: readonly string[]): FrameMetric | null {
  return (
    DEFAULT_METRIC_ORDER.find((m) => available.includes(m)) ??
    ([...available].sort()[0] as FrameMetric | undefined) ??
    null
  );
}

export const EVIDENCE_SCHEMAS: Record<EvidenceTableName, TableSchema> = {
  frames: {
    name: "frames",
    schemaId: "flameox.frames.v1.0",
    columns: [
      c("frame_id", "utf8"),
      c("language", "utf8"),
      c("function", "utf8"),
      c("module", "utf8", true),
      c("file", "utf8", true),
      c("line", "int32", true),
      c("column", "int32", true),
      c("symbolization", "utf8"),
    ],
  },
  frame_measurements: {
    name: "frame_measurements",
    schemaId: "flameox.frame_measurements.v1.0",
    columns: [
      c("frame_id", "utf8"),
      c("metric", "utf8"),
      c("unit", "utf8"),
      c("self_value", "int64"),
      c("inclusive_value", "int64"),
      c("self_samples", "int64"),
      c("inclusive_samples", "int64"),
      c("process_name", "utf8", true),
      c("thread_name", "utf8", true),
      c("track_id", "utf8", true),
    ],
  },
  call_edges: {
    name: "call_edges",
    schemaId: "flameox.call_edges.v1.0",
    columns: [
      c("metric", "utf8"),
      c("parent_frame_id", "utf8"),
      c("child_frame_id", "utf8"),
      c("sample_count", "int64"),
      c("duration_ns", "int64"),
    ],
  },
  stacks: {
    name: "stacks",
    schemaId: "flameox.stacks.v1.0",
    columns: [
      c("stack_id", "utf8"),
      c("metric", "utf8"),
      c("frame_ids", "list_utf8"),
      c("leaf_frame_id", "utf8"),
      c("sample_count", "int64"),
      c("duration_ns", "int64"),
      c("first_ts_ns", "int64", true),
      c("track_id", "utf8", true),
    ],
  },
  trace_events: {
    name: "trace_events",
    // v1.1 added thread_dur_ns; v1.0 files read with it null (tables are unioned by name).
    // v1.2 moved pid, tid, process_name and thread_name, the same on every event of a
    // track, into `tracks`; readers join them back by track_id (storage/track-columns.ts),
    // and read them from v1.0/v1.1 files, which still have them.
    schemaId: "flameox.trace_events.v1.2",
    columns: [
      c("event_index", "int64"),
      c("track_id", "utf8"),
      c("name", "utf8"),
      c("category", "utf8", true),
      c("phase", "utf8"),
      c("ts_ns", "int64"),
      c("dur_ns", "int64", true),
      c("depth", "int32"),
      c("args_json", "utf8", true),
      c("flags", "utf8", true),
      // The slice's thread (CPU) time, as its producer's thread clock measured it: Chrome's
      // tdur, or tts / Perfetto thread_time readings at begin and end. Null where unknown.
      c("thread_dur_ns", "int64", true),
    ],
  },
  // Counter readings that are nothing but a value on a track at a time (Perfetto's counter tracks:
  // Chrome's thread_time reading on every slice begin and end, process memory stats): ~2/3 of a
  // Chromium trace's events. Readers see each as the trace_events row it stood for (phase "C",
  // args {"value":N}, depth 0; storage/trace-counter-rows.ts). Written while the trace is still
  // being read, before its tracks are resolved, so a reading names its track by the generation's
  // track_index (see `tracks`), not by track_id.
  trace_counters: {
    name: "trace_counters",
    schemaId: "flameox.trace_counters.v1.0",
    columns: [
      c("event_index", "int64"),
      c("track_index", "int32"),
      c("name", "utf8"),
      c("ts_ns", "int64"),
      c("value", "float64"),
    ],
  },
  // One row per track of a generation's trace_events: a thread, a process-level track or an
  // async operation's track, with what its producer said about it. v1.1 added track_index, the
  // number trace_counters rows name the track by (null where a generation has none).
  tracks: {
    name: "tracks",
    schemaId: "flameox.tracks.v1.1",
    columns: [
      c("track_id", "utf8"),
      c("pid", "utf8", true),
      c("tid", "utf8", true),
      c("process_name", "utf8", true),
      c("thread_name", "utf8", true),
      c("track_index", "int32", true),
    ],
  },
  // One row per raw benchmark sample (never only a mean); exactly one of value_int /
  // value_float is set. Times are in ns. Producer aggregates are kept with
  // aggregation != "sample" so they never mix with samples.
  measurements: {
    name: "measurements",
    schemaId: "flameox.measurements.v1.0",
    columns: [
      c("measurement_id", "utf8"),
      c("name", "utf8"),
      c("value_int", "int64", true),
      c("value_float", "float64", true),
      c("unit", "utf8"),
      c("aggregation", "utf8"),
      c("scope", "utf8"),
      c("trial_id", "utf8", true),
      c("worker_id", "utf8", true),
      c("worker_run_index", "int32", true),
      c("value_index", "int32", true),
      c("loop_count", "int64", true),
      c("is_warmup", "bool"),
      c("block_id", "utf8", true),
      c("variant_id", "utf8", true),
      c("order_in_block", "int32", true),
      c("phase", "utf8", true),
      c("dimensions_json", "utf8", true),
      c("evidence_level", "utf8"),
    ],
  },
  // OTLP traces. Ordinals are positions in the request: resource_index in
  // resourceSpans, scope_index in that resource's scopeSpans, span_index over the whole
  // artifact. Ids are lowercase hex; attributes_json is typed canonical JSON (see
  // src/adapters/otlp/attributes.ts); times are unix ns.
  otel_resources: {
    name: "otel_resources",
    schemaId: "flameox.otel_resources.v1.0",
    columns: [
      c("resource_index", "int32"),
      c("schema_url", "utf8", true),
      c("attributes_json", "utf8"),
      c("dropped_attributes_count", "int64"),
    ],
  },
  otel_scopes: {
    name: "otel_scopes",
    schemaId: "flameox.otel_scopes.v1.0",
    columns: [
      c("resource_index", "int32"),
      c("scope_index", "int32"),
      c("name", "utf8", true),
      c("version", "utf8", true),
      c("schema_url", "utf8", true),
      c("attributes_json", "utf8"),
      c("dropped_attributes_count", "int64"),
    ],
  },
  otel_spans: {
    name: "otel_spans",
    schemaId: "flameox.otel_spans.v1.0",
    columns: [
      c("span_index", "int64"),
      c("resource_index", "int32"),
      c("scope_index", "int32"),
      c("trace_id", "utf8"),
      c("span_id", "utf8"),
      c("parent_span_id", "utf8", true),
      c("trace_state", "utf8", true),
      c("name", "utf8"),
      c("kind", "utf8"),
      c("start_unix_nano", "int64"),
      c("end_unix_nano", "int64"),
      c("duration_ns", "int64"),
      c("status_code", "utf8"),
      c("status_message", "utf8", true),
      c("flags", "int64", true),
      c("attributes_json", "utf8"),
      c("dropped_attributes_count", "int64"),
      c("dropped_events_count", "int64"),
      c("dropped_links_count", "int64"),
    ],
  },
  otel_span_events: {
    name: "otel_span_events",
    schemaId: "flameox.otel_span_events.v1.0",
    columns: [
      c("span_index", "int64"),
      c("event_index", "int32"),
      c("trace_id", "utf8"),
      c("span_id", "utf8"),
      c("time_unix_nano", "int64"),
      c("name", "utf8"),
      c("attributes_json", "utf8"),
      c("dropped_attributes_count", "int64"),
    ],
  },
  otel_span_links: {
    name: "otel_span_links",
    schemaId: "flameox.otel_span_links.v1.0",
    columns: [
      c("span_index", "int64"),
      c("link_index", "int32"),
      c("trace_id", "utf8"),
      c("span_id", "utf8"),
      c("linked_trace_id", "utf8"),
      c("linked_span_id", "utf8"),
      c("trace_state", "utf8", true),
      c("flags", "int64", true),
      c("attributes_json", "utf8"),
      c("dropped_attributes_count", "int64"),
    ],
  },
  // Test runner reports (pytest-reportlog, JUnit XML). One row per reported record in file
  // order: a test phase (setup / call / teardown), a collection report, a subtest or a
  // warning (record_kind). `outcome` is normalized (passed, failed, error, skipped,
  // xfailed, xpassed); `raw_outcome` is the producer's word. Text columns are bounded by the
  // adapter (see src/adapters/test-results/row-writer.ts) and flagged in `truncated`.
  test_results: {
    name: "test_results",
    schemaId: "flameox.test_results.v1.0",
    columns: [
      c("result_index", "int64"),
      c("record_kind", "utf8"),
      c("node_id", "utf8"),
      c("test_name", "utf8", true),
      c("suite", "utf8", true),
      c("file", "utf8", true),
      c("line", "int32", true),
      c("phase", "utf8", true),
      c("outcome", "utf8"),
      c("raw_outcome", "utf8", true),
      c("duration_ns", "int64", true),
      c("start_ts_ns", "int64", true),
      c("message", "utf8", true),
      c("exception_type", "utf8", true),
      c("crash_file", "utf8", true),
      c("crash_line", "int32", true),
      c("keywords_json", "utf8", true),
      c("properties_json", "utf8", true),
      c("rerun_index", "int32", true),
      c("truncated", "bool"),
    ],
  },
  // Execution coverage (coverage.py data files and JSON reports, Cobertura XML). One row per
  // executed or reported line (kind "line") or branch arc (kind "arc") of a file, per
  // context. For an arc, `line` is where it jumps from and `to_line` where to; coverage.py
  // writes entry and exit of a code object as negative line numbers, kept as written.
  // `executed` is false for statements and arcs a report lists as not run; a data file
  // records only what ran, so it has no false rows (the run says so in a limitation).
  coverage_lines: {
    name: "coverage_lines",
    schemaId: "flameox.coverage_lines.v1.0",
    columns: [
      c("file", "utf8"),
      c("kind", "utf8"),
      c("line", "int32"),
      c("to_line", "int32", true),
      // coverage.py's dynamic context (test name, phase); "" is its default context. Null where the
      // format has none.
      c("context", "utf8", true),
      c("executed", "bool"),
      // Times executed, where the producer counts (Cobertura hits); null where it only says yes or
      // no.
      c("hits", "int64", true),
      // The enclosing function or method, where the producer names it (coverage json "functions",
      // Cobertura methods).
      c("function", "utf8", true),
      // Branch conditions of the line, where the producer counts them (Cobertura
      // condition-coverage).
      c("branches_covered", "int32", true),
      c("branches_total", "int32", true),
    ],
  },
};

/** trace_events columns that live in `tracks` (v1.2 on) and readers join back by track_id. */
export const TRACK_COLUMNS = ["pid", "tid", "process_name", "thread_name"] as const;

/**
 * Provenance of every evidence row. Stored once per Parquet file (its schema metadata) and
 * read back as columns (storage/evidence-provenance.ts).
 */
export const PROVENANCE_COLUMNS: readonly ColumnSpec[] = [
  c("schema_version", "int32"),
  c("run_id", "utf8"),
  c("artifact_id", "utf8"),
  c("evidence_generation_id", "utf8"),
  c("extractor_name", "utf8"),
  c("extractor_version", "utf8"),
];
