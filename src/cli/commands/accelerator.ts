/**
 * `flameox analyze accelerator RUN_OR_ARTIFACT`: device streams' busy time, idle gaps with host
 * activity, launch latency. Read-only.
 */
import { defineCommand } from "citty";
import {
  AcceleratorTimelineRequest,
  answerAcceleratorTimeline,
  answerOperators,
  OperatorsRequest,
} from "../../application/requests/recipe-requests.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import { commonArgs, execute } from "../context.ts";
import { formatNs, safeText, table } from "../output.ts";
import { numberFlag } from "../request-flags.ts";

const evidenceLine = (e: { status: string; reason: string }) =>
  `evidence: ${e.status} (${safeText(e.reason)})`;

export const acceleratorCommand = defineCommand({
  meta: {
    name: "accelerator",
    description:
      "Per device stream: busy time and fraction, the longest idle gaps with what the host " +
      "did meanwhile, and launch latency",
  },
  args: {
    ...commonArgs,
    "min-gap-ns": {
      type: "string",
      description: "Shortest idle gap to report, ns (default 1000000)",
    },
    limit: { type: "string", description: "Maximum streams to return" },
    cursor: { type: "string", description: "Opaque cursor from a previous page" },
    run_or_artifact: { type: "positional", required: true, description: "RUN_OR_ARTIFACT" },
  },
  run: ({ args }) =>
    execute(
      args,
      (s) =>
        answerAcceleratorTimeline(
          s,
          checkRequest(AcceleratorTimelineRequest, {
            run_or_artifact: args.run_or_artifact,
            min_gap_ns: numberFlag(args["min-gap-ns"]),
            limit: numberFlag(args.limit),
            cursor: args.cursor,
          }),
        ),
      (r) =>
        [
          `accelerator timeline ` +
            `at ${r.corpus_commit_id}` +
            `${r.window ? `: device window ${formatNs(r.window.span_ns)}` : ""}`,
          evidenceLine(r.evidence),
          r.items.length > 0
            ? table([
                [
                  "DEVICE",
                  "STREAM",
                  "BUSY",
                  "BUSY%",
                  "KERNELS",
                  "ACTIVITIES",
                  "GAPS",
                  "LONGEST GAP",
                ],
                ...r.items.map((st) => [
                  safeText(st.device ?? st.track_id),
                  safeText(st.stream ?? ""),
                  formatNs(st.busy_ns),
                  (100 * st.busy_fraction).toFixed(1),
                  String(st.kernels),
                  String(st.activities),
                  String(st.idle_gaps),
                  formatNs(st.longest_gap_ns),
                ]),
              ])
            : "",
          r.gaps.length > 0
            ? `idle gaps of at least ${formatNs(r.min_gap_ns)} (longest first):`
            : "",
          ...r.gaps
            .slice(0, 10)
            .map(
              (g) =>
                `  ${formatNs(g.duration_ns)} on ${safeText(g.track_id)} from ${g.start_ns}: ` +
                `host ` +
                (g.host.length > 0
                  ? g.host.map((h) => `${safeText(h.name)} ${formatNs(h.overlap_ns)}`).join(", ")
                  : "idle"),
            ),
          r.launch_latency
            ? `launch latency (${r.launch_latency.matched} ` +
              `matched, ${r.launch_latency.unmatched} unmatched): ` +
              `min ${formatNs(r.launch_latency.min_ns)}, ` +
              `p50 ${formatNs(r.launch_latency.p50_ns)}, ` +
              `p90 ${formatNs(r.launch_latency.p90_ns)}, ` +
              `p99 ${formatNs(r.launch_latency.p99_ns)}, ` +
              `max ${formatNs(r.launch_latency.max_ns)}`
            : "",
          ...r.limitations.map((l) => `limitation ${l.code}: ${safeText(l.message)}`),
          r.next_cursor ? `more: --cursor ${r.next_cursor}` : "",
        ]
          .filter(Boolean)
          .join("\n"),
    ),
});

export const operatorsCommand = defineCommand({
  meta: {
    name: "operators",
    description:
      "Per torch.profiler operator: calls, CPU total and self time, and the GPU time of the " +
      "kernels it launched (by correlation id)",
  },
  args: {
    ...commonArgs,
    limit: { type: "string", description: "Maximum operators to return" },
    cursor: { type: "string", description: "Opaque cursor from a previous page" },
    run_or_artifact: { type: "positional", required: true, description: "RUN_OR_ARTIFACT" },
  },
  run: ({ args }) =>
    execute(
      args,
      (s) =>
        answerOperators(
          s,
          checkRequest(OperatorsRequest, {
            run_or_artifact: args.run_or_artifact,
            limit: numberFlag(args.limit),
            cursor: args.cursor,
          }),
        ),
      (r) =>
        [
          `operators at ${r.corpus_commit_id}`,
          evidenceLine(r.evidence),
          r.items.length > 0
            ? table([
                ["OPERATOR", "CALLS", "CPU TOTAL", "CPU SELF", "GPU SELF", "GPU TOTAL", "LAUNCHES"],
                ...r.items.map((o) => [
                  safeText(o.name),
                  String(o.calls),
                  formatNs(o.cpu_total_ns),
                  formatNs(o.cpu_self_ns),
                  formatNs(o.gpu_self_ns),
                  formatNs(o.gpu_total_ns),
                  String(o.launches),
                ]),
              ])
            : "",
          `total: ${r.totals.operators} operators, ${r.totals.calls} calls; device ` +
            `time ${formatNs(r.totals.gpu_ns)} in ${r.totals.device_activities} ` +
            `activities, ${formatNs(r.totals.gpu_unattributed_ns)} launched by no operator`,
          ...r.limitations.map((l) => `limitation ${l.code}: ${safeText(l.message)}`),
          r.next_cursor ? `more: --cursor ${r.next_cursor}` : "",
        ]
          .filter(Boolean)
          .join("\n"),
    ),
});
