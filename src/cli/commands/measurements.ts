/** `flameox measurements query`: raw benchmark samples. Thin: parse, call StudyService, render. */
import { defineCommand } from "citty";
import {
  answerMeasurementsQuery,
  MeasurementsQueryRequest,
} from "../../application/requests/measurement-requests.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import { StudyService } from "../../application/study/study-service.ts";
import { commonArgs, execute } from "../context.ts";
import { safeText, table } from "../output.ts";
import { numberFlag } from "../request-flags.ts";

const study = (s: { ws: StudyService["ws"] }) => new StudyService(s.ws);

export const measurementsCommand = defineCommand({
  meta: { name: "measurements", description: "Benchmark samples" },
  subCommands: {
    query: defineCommand({
      meta: {
        name: "query",
        description: "Raw samples of a run or artifact (warm-ups excluded unless asked)",
      },
      args: {
        ...commonArgs,
        "run-id": { type: "string" },
        "artifact-id": { type: "string" },
        "name-prefix": { type: "string" },
        "include-warmups": { type: "boolean", default: false },
        limit: { type: "string" },
        cursor: { type: "string" },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerMeasurementsQuery(
              study(s),
              checkRequest(MeasurementsQueryRequest, {
                run_id: args["run-id"],
                artifact_id: args["artifact-id"],
                name_prefix: args["name-prefix"],
                include_warmups: args["include-warmups"],
                limit: numberFlag(args.limit),
                cursor: args.cursor,
              }),
            ),
          (r) =>
            [
              `evidence: ${r.evidence.status} (${r.evidence.reason})`,
              table([
                ["NAME", "SCOPE", "VALUE", "UNIT", "AGG", "WARMUP"],
                ...r.items.map((m) => [
                  m.name,
                  safeText(m.scope).slice(0, 40),
                  String(m.value),
                  m.unit,
                  m.aggregation,
                  String(m.is_warmup),
                ]),
              ]),
              r.next_cursor ? `more: --cursor ${r.next_cursor}` : "",
            ]
              .filter(Boolean)
              .join("\n"),
        ),
    }),
  },
});
