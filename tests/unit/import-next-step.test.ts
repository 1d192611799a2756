/** The next tool an import result names follows the evidence the extraction produced. */
import { describe, expect, test } from "bun:test";
import { nextStepAfterImport } from "../../src/application/import-next-step.ts";

const RUN = "run_1";
const ARTIFACT = "sha256:ab";

describe("nextStepAfterImport", () => {
  test.each([
    [{ frames: 3, frame_measurements: 3, stacks: 2 }, "analyze_hotspots", { run_or_artifact: RUN }],
    // A trace with slices has frame measurements too: hotspots first.
    [{ trace_events: 10, frame_measurements: 4 }, "analyze_hotspots", { run_or_artifact: RUN }],
    [
      { trace_events: 10, frame_measurements: 0 },
      "get_trace_window",
      { artifact_id: ARTIFACT, start_ns: "0", end_ns: "0" },
    ],
    [
      { otel_spans: 5, otel_resources: 1 },
      "get_operation_window",
      { artifact_id: ARTIFACT, start_ns: "0", end_ns: "0" },
    ],
    [{ test_results: 7 }, "analyze_failures", { run_or_artifact: RUN }],
    [{ coverage_lines: 19 }, "analyze_coverage", { run_or_artifact: RUN }],
    [{ measurements: 12 }, "query_measurements", { run_id: RUN }],
    [{ measurements: 0 }, "get_evidence", { ref_type: "run", ref_id: RUN }],
    [{}, "get_evidence", { ref_type: "run", ref_id: RUN }],
  ])("%j → %s", (tables, tool, args) => {
    expect(nextStepAfterImport(RUN, ARTIFACT, tables as Record<string, number>)).toEqual({
      next_tool: tool,
      next_arguments: args,
    });
  });
});
