/**
 * Compile-time proof that every application result fits the schema its tool declares.
 * If a service adds or changes a field, `tsc` fails here until the schema follows, so the
 * published `outputSchema` cannot silently drift from what the server returns.
 */
import type { ImportResult as ImportModel } from "../../application/import-artifact.ts";
import type { EvidenceResult as EvidenceModel } from "../../application/get-evidence.ts";
import type { ValidationReport as ValidationModel } from "../../application/validate-workspace.ts";
import type {
  ArtifactDetail as ArtifactDetailModel,
  RunDetail as RunDetailModel,
} from "../../application/record-details.ts";
import type { Page } from "../../application/record-pages.ts";
import type { StatusResult as StatusModel } from "../../application/workspace-status.ts";
import type {
  ArtifactRecord as ArtifactModel,
  RunRecord as RunModel,
} from "../../domain/records.ts";
import type { HotspotsResult as HotspotsModel } from "../../analysis/hotspots.ts";
import type { StacksResult as StacksModel } from "../../analysis/stacks.ts";
import type { TraceWindowResult as TraceWindowModel } from "../../analysis/trace-window.ts";
import type { HotspotsResult, StacksResult, TraceWindowResult } from "./analysis.ts";
import type {
  ArtifactDetail,
  ArtifactPage,
  EvidenceResult,
  RunDetail,
  RunPage,
} from "./records.ts";
import type { ImportResult, InitResult, StatusResult, ValidationReport } from "./workspace.ts";

import type { ProfileDiffResult as ProfileDiffModel } from "../../analysis/profile-diff.ts";
import type { ProfileDiffResult } from "./pictures.ts";

type Fits<Model extends Schema, Schema> = Model;

export type SchemaChecks = [
  Fits<ProfileDiffModel, (typeof ProfileDiffResult)["infer"]>,
  Fits<StatusModel, (typeof StatusResult)["infer"]>,
  Fits<{ created: boolean; identity: StatusModel["workspace"] }, (typeof InitResult)["infer"]>,
  Fits<ImportModel, (typeof ImportResult)["infer"]>,
  Fits<ValidationModel, (typeof ValidationReport)["infer"]>,
  Fits<Page<RunModel>, (typeof RunPage)["infer"]>,
  Fits<Page<ArtifactModel>, (typeof ArtifactPage)["infer"]>,
  Fits<RunDetailModel, (typeof RunDetail)["infer"]>,
  Fits<ArtifactDetailModel, (typeof ArtifactDetail)["infer"]>,
  Fits<EvidenceModel, (typeof EvidenceResult)["infer"]>,
  Fits<HotspotsModel, (typeof HotspotsResult)["infer"]>,
  Fits<StacksModel, (typeof StacksResult)["infer"]>,
  Fits<TraceWindowModel, (typeof TraceWindowResult)["infer"]>,
];
