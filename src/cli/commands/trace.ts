/**
 * `flameox trace window`, and the OTLP subcommands (`operation-window`, `transitions`,
 * `gaps`), which load when used. Read-only: never take the write lock.
 */
import { defineCommand } from "citty";
import { checkRequest } from "../../application/requests/request-schema.ts";
import {
  answerTraceWindow,
  TraceWindowRequest,
} from "../../application/requests/trace-window-request.ts";
import { evidenceLine, more, pageArgs } from "../analysis-text.ts";
import { commonArgs, execute } from "../context.ts";
import { formatNs, safeText, table } from "../output.ts";
import { numberFlag } from "../request-flags.ts";

const otel = () => import("./otel-trace.ts");

export const traceCommand = defineCommand({
  meta: {
    name: "trace",
    description: "Trace slices and events; OTLP operation windows, transitions and gaps",
  },
  subCommands: {
    "operation-window": () => otel().then((m) => m.otelTraceSubcommands["operation-window"]),
    transitions: () => otel().then((m) => m.otelTraceSubcommands.transitions),
    gaps: () => otel().then((m) => m.otelTraceSubcommands.gaps),
    window: defineCommand({
      meta: {
        name: "window",
        description: "Events of an artifact overlapping [start, end] nanoseconds",
      },
      args: {
        ...commonArgs,
        limit: pageArgs.limit,
        cursor: pageArgs.cursor,
        artifact: { type: "positional", required: true },
        start: {
          type: "string",
          required: true,
          description: "Window start, ns in the trace clock",
        },
        end: { type: "string", required: true, description: "Window end, ns in the trace clock" },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerTraceWindow(
              s,
              checkRequest(TraceWindowRequest, {
                artifact_id: args.artifact,
                start_ns: args.start,
                end_ns: args.end,
                limit: numberFlag(args.limit),
                cursor: args.cursor,
              }),
            ),
          (r) =>
            [
              `trace window [${r.window.start_ns}, ${r.window.end_ns}] ` +
                `of ${r.inputs.subject.id}; trace spans ` +
                `[${r.trace_bounds.start_ns}, ${r.trace_bounds.end_ns}]`,
              evidenceLine(r.evidence),
              table([
                ["TS_NS", "DUR", "CPU", "PH", "DEPTH", "TRACK", "NAME"],
                ...r.items.map((e) => [
                  e.ts_ns,
                  e.dur_ns === null ? "-" : formatNs(e.dur_ns),
                  e.thread_dur_ns === null ? "-" : formatNs(e.thread_dur_ns),
                  e.phase,
                  String(e.depth),
                  safeText(e.track_id),
                  safeText(e.name),
                ]),
              ]),
              more(r.next_cursor),
            ]
              .filter(Boolean)
              .join("\n"),
        ),
    }),
  },
});
