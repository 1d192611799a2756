/**
 * The requests of the workload and capture use cases. None takes argv, cwd, a shell
 * string or environment for execution: a capture names a declared workload and parameter
 * values from its declared domains. A workload configuration is a *declaration* (the same
 * fields as flameox.toml), which is validated and written, never run.
 */
import { type } from "arktype";
import { WORKLOAD_FIELDS } from "../../domain/workload/workload-schema.ts";
import { CAPTURE_ADAPTER_NAMES } from "../capture/capture-names.ts";
import type { CaptureService } from "../capture/capture-service.ts";
import { defineRequest } from "./request-schema.ts";

const workloadName = type(/^[a-z][a-z0-9_-]{0,63}$/).describe(
  "a workload name declared in flameox.toml",
);
const configurationId = type(/^sha256:[0-9a-f]{64}$/).describe(
  "the configuration_id from workload_configuration_status",
);
const scalar = type("string <= 4096 | number | boolean");

export const WorkloadConfigurationRequest = defineRequest(
  "workload configuration",
  type({
    "+": "reject",
    name: workloadName.describe("the workload to create or replace"),
    operation: type("'create' | 'replace'").describe(
      "create (idempotent for an identical definition) or replace (needs " +
        "expected_configuration_id)",
    ),
    "expected_configuration_id?": configurationId,
    ...WORKLOAD_FIELDS,
  }),
);
export type WorkloadConfigurationRequest = typeof WorkloadConfigurationRequest.infer;

export const CapturePlanRequest = defineRequest(
  "capture plan",
  type({
    "+": "reject",
    adapter: type
      .enumerated(...CAPTURE_ADAPTER_NAMES)
      .describe("the capture adapter; see list_capabilities"),
    workload: workloadName,
    "parameters?": type({ "[string]": scalar }).describe(
      "values for the workload's declared parameters (each from its domain)",
    ),
    "adapter_options?": type({ "[string]": scalar }).describe(
      'adapter options, e.g. {"interval_us": 200} for v8-cpu, {"runs": 10} for hyperfine',
    ),
    "containment?": type("'trusted_local' | 'managed'").describe(
      "trusted_local (reported as uncontained) or managed (bubblewrap; refused when unavailable)",
    ),
  }),
);
export type CapturePlanRequest = typeof CapturePlanRequest.infer;

export const CapturePlanExecutionRequest = defineRequest(
  "capture plan execution",
  type({
    "+": "reject",
    plan_id: type("0 < string <= 200").describe(
      "the plan_id returned by plan_capture in this server process; single use",
    ),
  }),
);
export type CapturePlanExecutionRequest = typeof CapturePlanExecutionRequest.infer;

export const CapabilitiesRequest = defineRequest(
  "capabilities",
  type({
    "+": "reject",
    "mode?": type("'passive' | 'active_cached' | 'active_refresh'").describe(
      "passive runs nothing; active_cached (default) reuses probes up to a minute old; " +
        "active_refresh probes now",
    ),
    "adapter?": type.enumerated(...CAPTURE_ADAPTER_NAMES).describe("only this adapter"),
  }),
);
export type CapabilitiesRequest = typeof CapabilitiesRequest.infer;

/** The plan's bindings as the capture service takes them. */
export const planOf = (r: CapturePlanRequest) => ({
  adapter: r.adapter,
  workload: r.workload,
  parameters: r.parameters,
  adapterOptions: r.adapter_options,
  containment: r.containment,
});

export const answerCapturePlan = (capture: CaptureService, r: CapturePlanRequest) =>
  capture.plan(planOf(r));

export const answerCapabilities = (capture: CaptureService, r: CapabilitiesRequest) =>
  capture.capabilities(r.mode ?? "active_cached", r.adapter);

export function answerWorkloadConfiguration(
  capture: CaptureService,
  r: WorkloadConfigurationRequest,
) {
  const { name, operation, expected_configuration_id, ...spec } = r;
  return capture.configureWorkload({
    name,
    operation,
    expected_configuration_id,
    spec,
    source: "mcp_client",
  });
}
