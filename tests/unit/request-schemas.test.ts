/**
 * The use-case request schemas (src/application/requests/) are the one check of what a
 * request may say: each MCP tool's input is its request, with only the page size bounded
 * lower for the server's result budget, and a refusal names its field and request.
 */
import { describe, expect, test } from "bun:test";
import { type, type Type } from "arktype";
import {
  CapabilitiesRequest,
  CapturePlanExecutionRequest,
  CapturePlanRequest,
  WorkloadConfigurationRequest,
} from "../../src/application/requests/capture-requests.ts";
import {
  AnalysisRecordRequest,
  FindingLookupRequest,
  FindingRecordRequest,
  FindingsPageRequest,
  HypothesisLookupRequest,
  HypothesisRecordRequest,
  InvestigationCreateRequest,
  InvestigationLookupRequest,
  InvestigationsPageRequest,
} from "../../src/application/requests/investigation-requests.ts";
import {
  FrameDrillRequest,
  HotspotsRequest,
} from "../../src/application/requests/profile-analysis-request.ts";
import {
  ProfileDiffRequest,
  ProfileExportRequest,
} from "../../src/application/requests/profile-view-requests.ts";
import {
  LifecycleGapsRequest,
  OperationTransitionsRequest,
  OperationWindowRequest,
} from "../../src/application/requests/otel-requests.ts";
import {
  AcceleratorTimelineRequest,
  CoverageRequest,
  FailuresRequest,
  OperatorsRequest,
} from "../../src/application/requests/recipe-requests.ts";
import {
  ArtifactLookupRequest,
  EvidenceRequest,
  RecordPageRequest,
  RunLookupRequest,
  ValidationRequest,
} from "../../src/application/requests/record-requests.ts";
import { checkRequest, requestName } from "../../src/application/requests/request-schema.ts";
import { MeasurementsQueryRequest } from "../../src/application/requests/measurement-requests.ts";
import { RunSetFreezeRequest } from "../../src/application/requests/run-set-requests.ts";
import { ComparisonRequest } from "../../src/application/requests/comparison-requests.ts";
import {
  ExperimentLookupRequest,
  ExperimentPlanRequest,
  ExperimentRunRequest,
  TrialsPageRequest,
} from "../../src/application/requests/experiment-requests.ts";
import { RunsSummaryRequest } from "../../src/application/requests/summary-request.ts";
import { TraceWindowRequest } from "../../src/application/requests/trace-window-request.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import { MAX_PAGE_ROWS } from "../../src/domain/page-size.ts";
import { jsonSchemaOf } from "../../src/mcp/schemas/common.ts";
import { ImportArtifactInput } from "../../src/mcp/schemas/inputs.ts";
import { TOOLS } from "../../src/mcp/tools/index.ts";
import { parseConfig } from "../../src/storage/workspace-config.ts";

/** Each tool whose input is a use case's request, and that request. */
const TOOL_REQUESTS: Record<string, Type> = {
  analyze_hotspots: HotspotsRequest,
  get_frame_callers: FrameDrillRequest,
  get_frame_callees: FrameDrillRequest,
  get_stack_examples: FrameDrillRequest,
  get_trace_window: TraceWindowRequest,
  diff_profiles: ProfileDiffRequest,
  summarize_runs: RunsSummaryRequest,
  analyze_failures: FailuresRequest,
  analyze_coverage: CoverageRequest,
  analyze_accelerator_timeline: AcceleratorTimelineRequest,
  analyze_operators: OperatorsRequest,
  get_operation_window: OperationWindowRequest,
  get_operation_transitions: OperationTransitionsRequest,
  get_lifecycle_gaps: LifecycleGapsRequest,
  list_runs: RecordPageRequest,
  list_artifacts: RecordPageRequest,
  get_run: RunLookupRequest,
  get_artifact: ArtifactLookupRequest,
  validate_workspace: ValidationRequest,
  get_evidence: EvidenceRequest,
  query_measurements: MeasurementsQueryRequest,
  freeze_run_set: RunSetFreezeRequest,
  compare_run_sets: ComparisonRequest,
  record_comparison: ComparisonRequest,
  plan_experiment: ExperimentPlanRequest,
  run_experiment: ExperimentRunRequest,
  get_experiment: ExperimentLookupRequest,
  list_experiment_trials: TrialsPageRequest,
  analyze_scaling: ExperimentLookupRequest,
  create_investigation: InvestigationCreateRequest,
  list_investigations: InvestigationsPageRequest,
  get_investigation: InvestigationLookupRequest,
  record_hypothesis: HypothesisRecordRequest,
  get_hypothesis: HypothesisLookupRequest,
  record_finding: FindingRecordRequest,
  get_finding: FindingLookupRequest,
  list_findings: FindingsPageRequest,
  record_analysis: AnalysisRecordRequest,
  configure_workload: WorkloadConfigurationRequest,
  list_capabilities: CapabilitiesRequest,
  plan_capture: CapturePlanRequest,
  execute_capture_plan: CapturePlanExecutionRequest,
  // The import options plus where the file is; import-request.test.ts holds the two to the same
  // options.
  import_artifact: ImportArtifactInput,
};

type Json = Record<string, any>;
const withoutLimit = (schema: Json): Json => {
  const { limit: _limit, ...properties } = schema.properties ?? {};
  return { ...schema, properties };
};

function refusal(run: () => unknown): FlameoxError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FlameoxError);
    return error as FlameoxError;
  }
  throw new Error("accepted, but expected INVALID_ARGUMENTS");
}

describe("use-case request schemas", () => {
  test("every tool that takes a request is listed here, under the request's own name", () => {
    const named = TOOLS.filter((tool) => requestName(tool.input) !== undefined)
      .map((tool) => tool.name)
      .sort();
    expect(named).toEqual(Object.keys(TOOL_REQUESTS).sort());
    for (const [name, request] of Object.entries(TOOL_REQUESTS)) {
      const tool = TOOLS.find((t) => t.name === name)!;
      expect(requestName(tool.input)).toBe(requestName(request));
    }
  });

  test(
    "a tool's published input is its request's JSON Schema, the page size bounded lower and " +
      "nothing else",
    () => {
      for (const [name, request] of Object.entries(TOOL_REQUESTS)) {
        const tool = TOOLS.find((t) => t.name === name)!;
        const published = jsonSchemaOf(tool.input);
        const own = jsonSchemaOf(request);
        expect({ name, schema: withoutLimit(published) }).toEqual({
          name,
          schema: withoutLimit(own),
        });
        expect(published.additionalProperties).toBe(false);
        const limit = (published.properties as Json).limit;
        if (limit === undefined) {
          expect((own.properties as Json).limit).toBeUndefined();
          continue;
        }
        expect({ name, min: limit.minimum }).toEqual({ name, min: 1 });
        expect(limit.maximum).toBeLessThanOrEqual((own.properties as Json).limit.maximum);
      }
    },
  );

  test("a tool and its request accept and refuse the same values but for the page size", () => {
    const probes: [string, Record<string, unknown>][] = [
      [
        "analyze_hotspots",
        { run_or_artifact: "run_1", granularity: "file", exclude_pseudo_frames: true },
      ],
      ["analyze_hotspots", { run_or_artifact: "run_1", metric: "memory" }],
      ["get_frame_callers", { run_or_artifact: "run_1", frame_id: "f", granularity: "file" }],
      ["get_trace_window", { artifact_id: "a", start_ns: "1", end_ns: 2, cursor: null }],
      ["analyze_failures", { run_or_artifact: ["a", "b"], sql: "x" }],
      ["list_runs", {}],
      ["list_runs", { cursor: "" }],
    ];
    for (const [name, value] of probes) {
      const tool = TOOLS.find((t) => t.name === name)!;
      const viaTool = tool.input(value) instanceof type.errors;
      const viaRequest = TOOL_REQUESTS[name]!(value) instanceof type.errors;
      expect({ name, value, refused: viaTool }).toEqual({ name, value, refused: viaRequest });
    }
  });

  test("a request refuses a bad field with INVALID_ARGUMENTS naming it and the request", () => {
    const metric = refusal(() =>
      checkRequest(HotspotsRequest, {
        run_or_artifact: "run_1",
        metric: "memory",
        limit: undefined,
      }),
    );
    expect(metric.code).toBe("INVALID_ARGUMENTS");
    expect(metric.details).toEqual({ field: "metric", fields: ["metric"] });
    expect(metric.message).toStartWith("Invalid hotspots request: metric must be");
    const unknown = refusal(() =>
      checkRequest(ProfileExportRequest, {
        run_or_artifact: "run_1",
        format: "pprof",
        sql: "SELECT 1",
      }),
    );
    expect(unknown.details).toMatchObject({ field: "sql" });
    expect(unknown.message).toContain("sql is not a field of the profile export request");
    expect(
      refusal(() => checkRequest(ProfileExportRequest, { run_or_artifact: "run_1", format: "svg" }))
        .details,
    ).toMatchObject({ field: "format" });
    expect(
      checkRequest(ProfileExportRequest, {
        run_or_artifact: "run_1",
        format: "collapsed",
        metric: undefined,
      }),
    ).toEqual({ run_or_artifact: "run_1", format: "collapsed" });
  });

  test("requests of the same shape keep their own names", () => {
    // arktype shares one type between equal definitions; the name must not be shared with it.
    expect(jsonSchemaOf(RecordPageRequest)).toEqual(jsonSchemaOf(InvestigationsPageRequest));
    expect([requestName(RecordPageRequest), requestName(InvestigationsPageRequest)]).toEqual([
      "listing",
      "investigations listing",
    ]);
    expect(
      refusal(() => checkRequest(InvestigationsPageRequest, { cursor: "" })).message,
    ).toStartWith("Invalid investigations listing request: cursor");
  });

  test("a listing without flags is the empty request, which its schema accepts", () => {
    // `flameox runs list` relies on this to skip loading the schema when there is nothing to check.
    expect(RecordPageRequest({})).toEqual({});
  });

  test("a request's page may be as large as any workspace allows, and no larger", () => {
    expect(
      parseConfig(`[analysis]\nmax_row_limit = ${MAX_PAGE_ROWS}\n`).analysis.max_row_limit,
    ).toBe(MAX_PAGE_ROWS);
    expect(() => parseConfig(`[analysis]\nmax_row_limit = ${MAX_PAGE_ROWS + 1}\n`)).toThrow();
    expect(
      HotspotsRequest({ run_or_artifact: "run_1", limit: MAX_PAGE_ROWS }) instanceof type.errors,
    ).toBe(false);
    expect(
      HotspotsRequest({ run_or_artifact: "run_1", limit: MAX_PAGE_ROWS + 1 }) instanceof
        type.errors,
    ).toBe(true);
  });
});
