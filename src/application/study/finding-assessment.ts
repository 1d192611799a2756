/**
 * A performance finding (kind `regression`, or any finding naming a comparison) may be
 * assessed `supported` only when its comparison is `valid`, declares its estimand and a
 * practical threshold, and was validated by a passing cross-treatment oracle; otherwise it
 * is refused with COMPARISON_INVALID.
 */
import { FlameoxError } from "../../domain/errors.ts";
import type { StudyRecords } from "../../storage/study-records.ts";
import type { RecordedComparison } from "./comparisons.ts";

export function checkSupportingComparison(study: StudyRecords, comparisonId: string | null): void {
  const refuse = (reason: string, message: string) =>
    new FlameoxError(
      "COMPARISON_INVALID",
      `Cannot assess a performance finding as supported: ${message}`,
      { details: { field: "assessment", reason, comparison_id: comparisonId } },
    );
  if (comparisonId === null)
    throw refuse("comparison_missing", "it names no comparison (comparison_id)");
  const c = study.get<RecordedComparison>("comparisons", comparisonId);
  if (c.validity !== "valid")
    throw refuse("comparison_not_valid", `comparison ${comparisonId} has validity ${c.validity}`);
  if (!c.estimand)
    throw refuse("estimand_missing", `comparison ${comparisonId} declares no estimand`);
  if (!(typeof c.practical_threshold === "number" && c.practical_threshold > 0))
    throw refuse("threshold_missing", `comparison ${comparisonId} declares no practical threshold`);
  const oracleTrouble = c.mismatches.find((m) => m.code.startsWith("cross_treatment_validation"));
  if (!c.request?.experiment_id || oracleTrouble)
    throw refuse(
      "cross_treatment_oracle_missing",
      `comparison ${comparisonId} has no passing cross-treatment ` +
        `oracle${oracleTrouble ? ` (${oracleTrouble.code})` : " (no experiment)"}`,
    );
}
