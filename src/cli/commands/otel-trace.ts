/** `flameox trace operation-window|transitions|gaps ARTIFACT` over an imported OTLP trace. Read-only. */
import { defineCommand } from "citty";
import { FlameoxError } from "../../domain/errors.ts";
import { commonArgs, execute } from "../context.ts";
import { formatNs, safeText, table } from "../output.ts";
import { parseLimit } from "./records.ts";

const evidenceLine = (e: { status: string; reason: string }) => `evidence: ${e.status} (${safeText(e.reason)})`;
const more = (cursor: string | null) => (cursor ? `more: --cursor ${cursor}` : "");

function parseNs(value: string, field: string): bigint {
  if (!/^-?\d+$/.test(value.trim())) throw new FlameoxError("INVALID_ARGUMENTS", `Expected --${field} to be an integer number of unix nanoseconds but found ${JSON.stringify(value)}`, { details: { field } });
  return BigInt(value.trim());
}

function parseTraceId(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!/^[0-9a-fA-F]{32}$/.test(value)) throw new FlameoxError("INVALID_ARGUMENTS", `Expected --trace-id to be 32 hex digits but found ${JSON.stringify(value)}`, { details: { field: "trace_id" } });
  return value.toLowerCase();
}

const page = {
  limit: { type: "string", description: "Maximum rows to return" },
  cursor: { type: "string", description: "Opaque cursor from a previous page" },
} as const;
const traceIdArg = { "trace-id": { type: "string", description: "Only spans of this trace (32 hex digits)" } } as const;

export const otelTraceSubcommands = {
  "operation-window": defineCommand({
    meta: { name: "operation-window", description: "OTLP spans of an artifact overlapping [start, end] unix nanoseconds" },
    args: {
      ...commonArgs, ...page, ...traceIdArg,
      artifact: { type: "positional", required: true },
      start: { type: "string", required: true, description: "Window start, unix ns" },
      end: { type: "string", required: true, description: "Window end, unix ns" },
    },
    run: ({ args }) =>
      execute(args, (s) => s.operationWindow(args.artifact, { startNs: parseNs(args.start, "start"), endNs: parseNs(args.end, "end"), traceId: parseTraceId(args["trace-id"]), limit: parseLimit(args.limit), cursor: args.cursor }), (r) =>
        [
          `operation window [${r.window.start_ns}, ${r.window.end_ns}] of ${r.inputs.subject.id}`,
          evidenceLine(r.evidence),
          r.items.length > 0 ? table([["START", "DUR", "KIND", "STATUS", "TRACE", "SPAN", "NAME"], ...r.items.map((o) => [o.start_unix_nano, formatNs(o.duration_ns), o.kind.replace("SPAN_KIND_", ""), o.status_code.replace("STATUS_CODE_", ""), o.trace_id, o.span_id, safeText(o.name)])]) : "",
          more(r.next_cursor),
        ].filter(Boolean).join("\n"),
      ),
  }),
  transitions: defineCommand({
    meta: { name: "transitions", description: "OTLP parent→child span transitions, to a maximum depth" },
    args: { ...commonArgs, ...page, ...traceIdArg, artifact: { type: "positional", required: true }, "max-depth": { type: "string", description: "Deepest level followed (default 8)" } },
    run: ({ args }) =>
      execute(args, (s) => s.operationTransitions(args.artifact, { maxDepth: args["max-depth"] === undefined ? undefined : Number(args["max-depth"]), traceId: parseTraceId(args["trace-id"]), limit: parseLimit(args.limit), cursor: args.cursor }), (r) =>
        [
          `transitions of ${r.inputs.subject.id} (max depth ${r.max_depth})`,
          evidenceLine(r.evidence),
          r.items.length > 0 ? table([["COUNT", "DEPTH", "TIME", "PARENT", "CHILD"], ...r.items.map((t) => [String(t.count), String(t.depth), formatNs(t.total_duration_ns), safeText(t.parent_name), safeText(t.child_name)])]) : "",
          more(r.next_cursor),
        ].filter(Boolean).join("\n"),
      ),
  }),
  gaps: defineCommand({
    meta: { name: "gaps", description: "OTLP lifecycle gaps: missing parents, bad timestamps, bad identities" },
    args: { ...commonArgs, limit: page.limit, artifact: { type: "positional", required: true } },
    run: ({ args }) =>
      execute(args, (s) => s.lifecycleGaps(args.artifact, { limit: parseLimit(args.limit) }), (r) =>
        [
          `lifecycle gaps of ${r.inputs.subject.id}`,
          evidenceLine(r.evidence),
          ...r.items.map((g) => `${g.kind}: ${g.count} span(s), e.g. ${g.examples.map((e) => `${safeText(e.name)} (${e.trace_id}/${e.span_id})`).join(", ")}`),
        ].filter(Boolean).join("\n"),
      ),
  }),
};
