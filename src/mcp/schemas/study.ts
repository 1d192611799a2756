/**
 * Results of the study tools, declared field by field in study-results.ts (the same
 * models the CLI prints with --json); their inputs are the study requests
 * (application/requests/: measurement, run-set, comparison and experiment requests).
 */
export {
  ComparisonResultSchema,
  ExperimentPlanResult,
  ExperimentResult,
  MeasurementsPageResult,
  RunSetResult,
  ScalingResultSchema,
  TrialPageResult,
} from "./study-results.ts";
