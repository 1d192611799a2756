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

const c = (name: string, type: ColumnType, nullable = false): ColumnSpec => ({ name, type, nullable });

export const EVIDENCE_TABLE_NAMES = ["frames", "frame_measurements", "call_edges", "stacks", "trace_events"] as const;
export type EvidenceTableName = (typeof EVIDENCE_TABLE_NAMES)[number];

/** Metric of a frame measurement: sampled CPU time or wall time of trace slices. */
export type FrameMetric = "cpu_time" | "wall_time";

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
    schemaId: "flameox.trace_events.v1.0",
    columns: [
      c("event_index", "int64"),
      c("track_id", "utf8"),
      c("pid", "utf8", true),
      c("tid", "utf8", true),
      c("process_name", "utf8", true),
      c("thread_name", "utf8", true),
      c("name", "utf8"),
      c("category", "utf8", true),
      c("phase", "utf8"),
      c("ts_ns", "int64"),
      c("dur_ns", "int64", true),
      c("depth", "int32"),
      c("args_json", "utf8", true),
      c("flags", "utf8", true),
    ],
  },
};

/** Columns the publisher appends to every evidence row. */
export const PROVENANCE_COLUMNS: readonly ColumnSpec[] = [
  c("schema_version", "int32"),
  c("run_id", "utf8"),
  c("artifact_id", "utf8"),
  c("evidence_generation_id", "utf8"),
  c("extractor_name", "utf8"),
  c("extractor_version", "utf8"),
];
