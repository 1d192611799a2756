/**
 * diff_profiles: the differential profile of two runs or artifacts, any formats. Read-only and
 * paged.
 */
import {
  answerProfileDiff,
  ProfileDiffRequest,
} from "../../application/requests/profile-view-requests.ts";
import { ProfileDiffResult } from "../schemas/pictures.ts";
import { listLimit, toolPage } from "../schemas/tool-pages.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

export const diffProfiles = defineTool({
  name: "diff_profiles",
  title: "Diff two profiles",
  description:
    "Functions whose self and total cost moved most from base to candidate (two runs or " +
    "artifacts of any profile formats; " +
    "functions match by name and file, else by a unique name). Deltas are absolute and in " +
    "points of each profile's total. Paginated.",
  annotations: READ_ONLY,
  input: toolPage(ProfileDiffRequest, listLimit),
  result: ProfileDiffResult,
  pageable: true,
  run: async (request, { session }) => answerProfileDiff(await session.open(), request),
  summarize: (r) =>
    [
      `diff ${r.base.subject.id} → ${r.candidate.subject.id} ` +
        `(${r.metric ?? "no metric"}, ${r.unit}): ${r.returned} of ${r.total}; ` +
        `evidence ${r.evidence.status}: ${r.evidence.reason}`,
      ...r.items
        .slice(0, 3)
        .map(
          (d) =>
            `#${d.rank} ${d.function}: self ${d.delta_self > 0 ? "+" : ""}${d.delta_self} ` +
            `(${(100 * d.delta_self_share).toFixed(1)} pts)`,
        ),
    ].join("\n"),
});
