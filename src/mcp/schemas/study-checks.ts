/** Compile-time proof that the study tools' results fit the schemas their tools publish. */
import type { ComparisonResult as ComparisonModel } from "../../analysis/comparison/compare-run-sets.ts";
import type { MeasurementsPage as MeasurementsModel } from "../../analysis/measurements/query-measurements.ts";
import type { ScalingResult as ScalingModel } from "../../analysis/scaling.ts";
import type { RecordedComparison as RecordedModel } from "../../application/study/comparisons.ts";
import type { ExperimentPlan as PlanModel } from "../../application/study/experiment-protocol.ts";
import type { ExperimentRecord as ExperimentModel } from "../../application/study/experiment-record.ts";
import type { TrialPage as TrialPageModel } from "../../application/study/study-service.ts";
import type { RunSetRecord as RunSetModel } from "../../domain/run-set.ts";
import type {
  ComparisonResultSchema,
  ExperimentPlanResult,
  ExperimentResult,
  MeasurementsPageResult,
  RunSetResult,
  ScalingResultSchema,
  TrialPageResult,
} from "./study-results.ts";

type Fits<Model extends Schema, Schema> = Model;

export type StudySchemaChecks = [
  Fits<MeasurementsModel, (typeof MeasurementsPageResult)["infer"]>,
  Fits<RunSetModel, (typeof RunSetResult)["infer"]>,
  Fits<ComparisonModel, (typeof ComparisonResultSchema)["infer"]>,
  Fits<RecordedModel, (typeof ComparisonResultSchema)["infer"]>,
  Fits<PlanModel, (typeof ExperimentPlanResult)["infer"]>,
  Fits<ExperimentModel, (typeof ExperimentResult)["infer"]>,
  Fits<TrialPageModel, (typeof TrialPageResult)["infer"]>,
  Fits<ScalingModel, (typeof ScalingResultSchema)["infer"]>,
];
