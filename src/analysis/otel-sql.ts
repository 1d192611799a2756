/** Versioned SQL of the OTLP lifecycle queries (bound parameters only; see otel-lifecycle.ts). */
/** The span columns these queries read: all the engine loads of `otel_spans`. */
export const OTEL_SPAN_COLUMNS = [
  "span_index",
  "trace_id",
  "span_id",
  "parent_span_id",
  "name",
  "kind",
  "start_unix_nano",
  "end_unix_nano",
  "duration_ns",
  "status_code",
];

const TRACE_FILTER = `(CAST(? AS VARCHAR) IS NULL OR trace_id = CAST(? AS VARCHAR))`;
const WINDOW = `start_unix_nano <= ? AND end_unix_nano >= ? AND ${TRACE_FILTER}`;

export const OTEL_SQL = {
  windowTotal: `SELECT count(*) AS n FROM otel_spans WHERE ${WINDOW}`,
  windowPage: `SELECT span_index, trace_id, span_id, parent_span_id, name, kind,
      CAST(start_unix_nano AS VARCHAR) AS start_unix_nano,
      CAST(end_unix_nano AS VARCHAR) AS end_unix_nano, duration_ns, status_code
    FROM otel_spans WHERE ${WINDOW}
    ORDER BY otel_spans.start_unix_nano, span_index LIMIT ? OFFSET ?`,
  // Roots are spans without a parent or whose parent is not in the artifact; depth counts from
  // them.
  transitions: `WITH RECURSIVE spans AS (SELECT * FROM otel_spans WHERE ${TRACE_FILTER}),
    tree(trace_id, span_id, name, duration_ns, depth) AS (
      SELECT s.trace_id, s.span_id, s.name, s.duration_ns, 0 FROM spans s
        WHERE s.parent_span_id IS NULL OR NOT EXISTS
          (SELECT 1 FROM spans p WHERE p.trace_id = s.trace_id AND p.span_id = s.parent_span_id)
      UNION ALL
      SELECT c.trace_id, c.span_id, c.name, c.duration_ns, t.depth + 1 FROM spans c
        JOIN tree t ON c.trace_id = t.trace_id AND c.parent_span_id = t.span_id
        WHERE t.depth < ?)
    SELECT p.name AS parent_name, c.name AS child_name, c.depth AS depth, count(*) AS n,
      sum(c.duration_ns) AS total_duration_ns, min(c.trace_id) AS example_trace_id
    FROM tree c JOIN spans s ON s.trace_id = c.trace_id AND s.span_id = c.span_id
      JOIN tree p ON p.trace_id = c.trace_id AND p.span_id = s.parent_span_id
        AND p.depth = c.depth - 1
    GROUP BY p.name, c.name, c.depth ORDER BY n DESC, parent_name, child_name, depth`,
  gaps: {
    missing_parent: `SELECT span_index, trace_id, span_id, name FROM otel_spans s WHERE
      parent_span_id IS NOT NULL AND NOT EXISTS
      (SELECT 1 FROM otel_spans p WHERE p.trace_id = s.trace_id AND p.span_id = s.parent_span_id)`,
    invalid_timestamps:
      `SELECT span_index, trace_id, span_id, name FROM otel_spans WHERE start_unix_nano = 0 OR ` +
      `end_unix_nano = 0 OR end_unix_nano < start_unix_nano`,
    invalid_trace_id:
      `SELECT span_index, trace_id, span_id, name FROM otel_spans WHERE length(trace_id) <> 32 ` +
      `OR trace_id = repeat('0', 32)`,
    invalid_span_id:
      `SELECT span_index, trace_id, span_id, name FROM otel_spans WHERE length(span_id) <> 16 ` +
      `OR span_id = repeat('0', 16)`,
    duplicate_span_id: `SELECT span_index, trace_id, span_id, name FROM otel_spans s WHERE EXISTS
      (SELECT 1 FROM otel_spans d WHERE d.trace_id = s.trace_id AND d.span_id = s.span_id
        AND d.span_index <> s.span_index)`,
  },
} as const;
