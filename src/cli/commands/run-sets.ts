/** `flameox run-sets freeze|show`. Thin: parse, call StudyService, render. */
import { defineCommand } from "citty";
import { checkRequest } from "../../application/requests/request-schema.ts";
import {
  answerRunSet,
  answerRunSetFreeze,
  RunSetFreezeRequest,
  RunSetLookupRequest,
} from "../../application/requests/run-set-requests.ts";
import { StudyService } from "../../application/study/study-service.ts";
import { commonArgs, execute } from "../context.ts";
import { positionals } from "../request-flags.ts";

const study = (s: { ws: StudyService["ws"] }) => new StudyService(s.ws);

export const runSetsCommand = defineCommand({
  meta: { name: "run-sets", description: "Frozen run sets" },
  subCommands: {
    freeze: defineCommand({
      meta: {
        name: "freeze",
        description: "Freeze runs into a run set pinned to the current corpus commit",
      },
      args: {
        ...commonArgs,
        run_ids: { type: "positional", required: true, description: "RUN_ID..." },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerRunSetFreeze(
              study(s),
              checkRequest(RunSetFreezeRequest, { run_ids: positionals(args, args.run_ids) }),
            ),
          (r) => `run set ${r.run_set_id}: ${r.members.length} member(s) at ${r.corpus_commit_id}`,
        ),
    }),
    show: defineCommand({
      meta: { name: "show", description: "Show a run set" },
      args: { ...commonArgs, id: { type: "positional", required: true } },
      run: ({ args }) =>
        execute(
          args,
          (s) => answerRunSet(study(s), checkRequest(RunSetLookupRequest, { run_set_id: args.id })),
          (r) =>
            [
              `run set ${r.run_set_id} at ${r.corpus_commit_id}`,
              ...r.members.map(
                (m) =>
                  `${m.run_id} ${m.block_id ?? ""} ` +
                  `${m.included ? "included" : `excluded: ${m.reason}`}`,
              ),
            ].join("\n"),
        ),
    }),
  },
});
