/**
 * `flameox trace operation-window|transitions|gaps ARTIFACT` over an imported OTLP trace.
 * Read-only.
 */
import { defineCommand } from "citty";
import {
  answerLifecycleGaps,
  answerOperationTransitions,
  answerOperationWindow,
  LifecycleGapsRequest,
  OperationTransitionsRequest,
  OperationWindowRequest,
} from "../../application/requests/otel-requests.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import { commonArgs, execute } from "../context.ts";
import { formatNs, safeText, table } from "../output.ts";
import { numberFlag } from "../request-flags.ts";

const evidenceLine = (e: { status: string; reason: string }) =>
  `evidence: ${e.status} (${safeText(e.reason)})`;
const more = (cursor: string | null) => (cursor ? `more: --cursor ${cursor}` : "");

const page = {
  limit: { type: "string", description: "Maximum rows to return" },
  cursor: { type: "string", description: "Opaque cursor from a previous page" },
} as const;
const traceIdArg = {
  "trace-id": { type: "string", description: "Only spans of this trace (32 hex digits)" },
} as const;

export const otelTraceSubcommands = {
  "operation-window": defineCommand({
    meta: {
      name: "operation-window",
      description: "OTLP spans of an artifact overlapping [start, end] unix nanoseconds",
    },
    args: {
      ...commonArgs,
      ...page,
      ...traceIdArg,
      artifact: { type: "positional", required: true },
      start: { type: "string", required: true, description: "Window start, unix ns" },
      end: { type: "string", required: true, description: "Window end, unix ns" },
    },
    run: ({ args }) =>
      execute(
        args,
        (s) =>
          answerOperationWindow(
            s,
            checkRequest(OperationWindowRequest, {
              artifact_id: args.artifact,
              start_ns: args.start,
              end_ns: args.end,
              trace_id: args["trace-id"],
              limit: numberFlag(args.limit),
              cursor: args.cursor,
            }),
          ),
        (r) =>
          [
            `operation window [${r.window.start_ns}, ${r.window.end_ns}] of ${r.inputs.subject.id}`,
            evidenceLine(r.evidence),
            r.items.length > 0
              ? table([
                  ["START", "DUR", "KIND", "STATUS", "TRACE", "SPAN", "NAME"],
                  ...r.items.map((o) => [
                    o.start_unix_nano,
                    formatNs(o.duration_ns),
                    o.kind.replace("SPAN_KIND_", ""),
                    o.status_code.replace("STATUS_CODE_", ""),
                    o.trace_id,
                    o.span_id,
                    safeText(o.name),
                  ]),
                ])
              : "",
            more(r.next_cursor),
          ]
            .filter(Boolean)
            .join("\n"),
      ),
  }),
  transitions: defineCommand({
    meta: {
      name: "transitions",
      description: "OTLP parent→child span transitions, to a maximum depth",
    },
    args: {
      ...commonArgs,
      ...page,
      ...traceIdArg,
      artifact: { type: "positional", required: true },
      "max-depth": { type: "string", description: "Deepest level followed (default 8)" },
    },
    run: ({ args }) =>
      execute(
        args,
        (s) =>
          answerOperationTransitions(
            s,
            checkRequest(OperationTransitionsRequest, {
              artifact_id: args.artifact,
              max_depth: numberFlag(args["max-depth"]),
              trace_id: args["trace-id"],
              limit: numberFlag(args.limit),
              cursor: args.cursor,
            }),
          ),
        (r) =>
          [
            `transitions of ${r.inputs.subject.id} (max depth ${r.max_depth})`,
            evidenceLine(r.evidence),
            r.items.length > 0
              ? table([
                  ["COUNT", "DEPTH", "TIME", "PARENT", "CHILD"],
                  ...r.items.map((t) => [
                    String(t.count),
                    String(t.depth),
                    formatNs(t.total_duration_ns),
                    safeText(t.parent_name),
                    safeText(t.child_name),
                  ]),
                ])
              : "",
            more(r.next_cursor),
          ]
            .filter(Boolean)
            .join("\n"),
      ),
  }),
  gaps: defineCommand({
    meta: {
      name: "gaps",
      description: "OTLP lifecycle gaps: missing parents, bad timestamps, bad identities",
    },
    args: { ...commonArgs, limit: page.limit, artifact: { type: "positional", required: true } },
    run: ({ args }) =>
      execute(
        args,
        (s) =>
          answerLifecycleGaps(
            s,
            checkRequest(LifecycleGapsRequest, {
              artifact_id: args.artifact,
              limit: numberFlag(args.limit),
            }),
          ),
        (r) =>
          [
            `lifecycle gaps of ${r.inputs.subject.id}`,
            evidenceLine(r.evidence),
            ...r.items.map(
              (g) =>
                `${g.kind}: ${g.count} span(s), ` +
                `e.g. ` +
                g.examples
                  .map((e) => `${safeText(e.name)} (${e.trace_id}/${e.span_id})`)
                  .join(", "),
            ),
          ]
            .filter(Boolean)
            .join("\n"),
      ),
  }),
};
