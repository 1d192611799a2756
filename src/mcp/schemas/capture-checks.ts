/** Compile-time proof that the workload and capture results fit the schemas their tools publish. */
import type { CapabilitiesResult as CapabilitiesModel } from "../../application/capture/capture-service.ts";
import type { PlanPreview as PlanModel } from "../../application/capture/capture-plan.ts";
import type { CaptureResult as CaptureModel } from "../../application/capture/capture-result.ts";
import type { ConfigureWorkloadResult as ConfigureModel } from "../../application/capture/configure-workload.ts";
import type { WorkloadConfigurationStatus as StatusModel } from "../../application/capture/workload-queries.ts";
import type {
  CapabilitiesResult,
  CaptureResult,
  ConfigureWorkloadResult,
  PlanPreview,
  WorkloadConfigurationStatus,
} from "./capture-results.ts";

type Fits<Model extends Schema, Schema> = Model;

export type CaptureSchemaChecks = [
  Fits<StatusModel, (typeof WorkloadConfigurationStatus)["infer"]>,
  Fits<ConfigureModel, (typeof ConfigureWorkloadResult)["infer"]>,
  Fits<CapabilitiesModel, (typeof CapabilitiesResult)["infer"]>,
  Fits<PlanModel, (typeof PlanPreview)["infer"]>,
  Fits<CaptureModel, (typeof CaptureResult)["infer"]>,
];
