/**
 * `flameox flamegraph`, `flameox diff`, `flameox export`: pictures, differential profiles and
 * exports.
 */
import { defineCommand } from "citty";
import { FlameoxError } from "../../domain/errors.ts";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";
import type { ProfileDiffResult } from "../../analysis/profile-diff.ts";
import { commonArgs, execute } from "../context.ts";
import { safeText, table } from "../output.ts";
import { EXPORT_FORMATS } from "../../domain/export-formats.ts";
import { numberFlag } from "../request-flags.ts";

// The request schemas load with arktype (~0.2 s), so only when one of these commands runs.
const viewRequests = () => import("../../application/requests/profile-view-requests.ts");
const checking = () => import("../../application/requests/request-schema.ts");

const metricArg = {
  type: "string",
  description:
    `Metric to draw: ${FRAME_METRICS.join(" | ")} (default: cpu_time when present, else ` +
    `wall_time, inuse_space, samples)`,
} as const;
const outputArgs = {
  output: {
    type: "string",
    alias: "o",
    required: true,
    description: "File to write",
    valueHint: "FILE",
  },
  force: { type: "boolean", default: false, description: "Replace the output file if it exists" },
} as const;

/**
 * The picture format follows --format (the request checks it), else the output's extension (.svg or
 * .html).
 */
function pictureFormat(output: string, format: string | undefined): string {
  if (format !== undefined) return format;
  if (output.endsWith(".svg")) return "svg";
  if (output.endsWith(".html") || output.endsWith(".htm")) return "html";
  throw new FlameoxError(
    "INVALID_ARGUMENTS",
    `Cannot tell the picture format from ${JSON.stringify(output)}: name it .html or .svg, ` +
      `or pass --format`,
    { details: { field: "format" } },
  );
}

function positiveInt(field: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected --${field} to be a positive integer but found ${JSON.stringify(value)}`,
      { details: { field } },
    );
  return Number(value);
}

export const flamegraphCommand = defineCommand({
  meta: {
    name: "flamegraph",
    description:
      "Draw a flamegraph (HTML with search, zoom and tooltips, or SVG) of a run or artifact; " +
      "--diff BASE draws a differential one.\n" +
      "Examples:\n  flameox flamegraph sha256:1a2b3c4d -o cpu.html\n  flameox flamegraph " +
      "run_… --metric inuse_space --icicle -o heap.svg\n" +
      "  flameox flamegraph CANDIDATE --diff BASE -o diff.html",
  },
  args: {
    ...commonArgs,
    ...outputArgs,
    run_or_artifact: { type: "positional", required: true },
    diff: {
      type: "string",
      description: "Base run or artifact of a differential flamegraph",
      valueHint: "BASE",
    },
    format: { type: "string", description: "html | svg (default: from the output's extension)" },
    metric: metricArg,
    granularity: {
      type: "string",
      description: "function (name + file) | line | file (default: function)",
    },
    filter: {
      type: "string",
      description: "Keep only stacks with a frame matching this regular expression",
    },
    icicle: { type: "boolean", default: false, description: "Draw root at the top (icicle graph)" },
    width: {
      type: "string",
      description: "Width in pixels (default 1200); boxes under half a pixel are merged",
    },
    register: {
      type: "boolean",
      default: false,
      description: "Also store the picture as an artifact of the run it shows",
    },
  },
  run: ({ args }) =>
    execute(
      args,
      async (s) => {
        const [{ answerFlamegraph, FlamegraphRequest }, { checkRequest }] = await Promise.all([
          viewRequests(),
          checking(),
        ]);
        const rendered = await answerFlamegraph(
          s,
          checkRequest(FlamegraphRequest, {
            run_or_artifact: args.run_or_artifact,
            diff_base: args.diff,
            format: pictureFormat(args.output, args.format),
            metric: args.metric,
            granularity: args.granularity,
            filter: args.filter,
            icicle: args.icicle,
            width_px: numberFlag(args.width),
          }),
        );
        const { writeOutputFile } = await import("../../application/output-files.ts");
        await writeOutputFile(args.output, rendered.bytes, { force: args.force });
        const registered = args.register
          ? await s
              .views()
              .registerPicture(args.run_or_artifact, args.output, rendered.summary.format)
          : null;
        return {
          ...rendered.summary,
          output: args.output,
          bytes: rendered.bytes.byteLength,
          registered,
        };
      },
      (r) =>
        [
          `wrote ${safeText(r.output)} (${r.format}, ${r.bytes} bytes, ${r.boxes} boxes)`,
          ...r.notes.map(safeText),
          r.registered ? `registered as ${r.registered.artifact_id} of ${r.registered.run_id}` : "",
        ]
          .filter(Boolean)
          .join("\n"),
    ),
});

function signed(value: number): string {
  return `${value > 0 ? "+" : ""}${Number.isInteger(value) ? value : value.toFixed(1)}`;
}

export function renderDiff(r: ProfileDiffResult): string {
  const head =
    `diff of ${r.candidate.subject.id} against ${r.base.subject.id} ` +
    `(${r.metric ?? "no metric"}, ${r.unit}) at ${r.corpus_commit_id}`;
  const lines = [head, `evidence: ${r.evidence.status} (${safeText(r.evidence.reason)})`];
  if (r.items.length > 0) {
    lines.push(
      `totals: base ${r.totals.base}, candidate ${r.totals.candidate}` +
        (r.totals.ratio !== null ? ` (×${r.totals.ratio.toFixed(3)})` : "") +
        (r.normalized ? "; base normalized to the candidate's total" : ""),
    );
    lines.push(
      table([
        [
          "#",
          "ΔSELF",
          "ΔSELF pts",
          "ΔTOTAL",
          "ΔTOTAL pts",
          "BASE SELF",
          "CAND SELF",
          "FUNCTION",
          "MATCH",
        ],
        ...r.items.map((d) => [
          String(d.rank),
          signed(d.delta_self),
          signed(d.delta_self_share * 100),
          signed(d.delta_total),
          signed(d.delta_total_share * 100),
          String(d.base.self),
          String(d.candidate.self),
          safeText(d.file ? `${d.function} (${d.file})` : d.function),
          d.match,
        ]),
      ]),
    );
  }
  for (const l of r.limitations) lines.push(`limitation ${l.code}: ${safeText(l.message)}`);
  if (r.next_cursor) lines.push(`more: --cursor ${r.next_cursor}`);
  return lines.join("\n");
}

export const diffCommand = defineCommand({
  meta: {
    name: "diff",
    description:
      "Functions whose self and total cost moved most between two profiles, of any formats " +
      "(like pprof -diff_base).\n" +
      "Examples:\n  flameox diff BASE CANDIDATE\n  flameox diff run_a run_b --sort total " +
      "--normalize --limit 20",
  },
  args: {
    ...commonArgs,
    base: { type: "positional", required: true, description: "Base run or artifact" },
    candidate: { type: "positional", required: true, description: "Candidate run or artifact" },
    metric: metricArg,
    sort: {
      type: "string",
      description: "self | total: which change ranks the rows (default self)",
    },
    normalize: {
      type: "boolean",
      default: false,
      description: "Scale the base to the candidate's total before subtracting",
    },
    limit: { type: "string", description: "Maximum rows to return" },
    cursor: { type: "string", description: "Opaque cursor from a previous page" },
  },
  run: ({ args }) =>
    execute(
      args,
      async (s) => {
        const [{ answerProfileDiff, ProfileDiffRequest }, { checkRequest }] = await Promise.all([
          viewRequests(),
          checking(),
        ]);
        return answerProfileDiff(
          s,
          checkRequest(ProfileDiffRequest, {
            base: args.base,
            candidate: args.candidate,
            metric: args.metric,
            sort: args.sort,
            normalize: args.normalize,
            limit: numberFlag(args.limit),
            cursor: args.cursor,
          }),
        );
      },
      renderDiff,
      (r) => r.evidence.status === "unavailable",
    ),
});

export const exportCommand = defineCommand({
  meta: {
    name: "export",
    description:
      "Write a run's or artifact's evidence in another tool's format: speedscope, pprof " +
      "(gzipped profile.proto), chrome-trace, collapsed.\n" +
      "Examples:\n  flameox export sha256:1a2b3c4d --format pprof -o cpu.pb.gz\n  flameox " +
      "export run_… --format collapsed -o stacks.folded",
  },
  args: {
    ...commonArgs,
    ...outputArgs,
    run_or_artifact: { type: "positional", required: true },
    format: { type: "string", required: true, description: EXPORT_FORMATS.join(" | ") },
    metric: metricArg,
  },
  run: ({ args }) =>
    execute(
      args,
      async (s) => {
        const [{ answerProfileExport, ProfileExportRequest }, { checkRequest }] = await Promise.all(
          [viewRequests(), checking()],
        );
        const rendered = await answerProfileExport(
          s,
          checkRequest(ProfileExportRequest, {
            run_or_artifact: args.run_or_artifact,
            format: args.format,
            metric: args.metric,
          }),
        );
        const { writeOutputFile } = await import("../../application/output-files.ts");
        await writeOutputFile(args.output, rendered.bytes, { force: args.force });
        return { ...rendered.summary, output: args.output };
      },
      (r) =>
        `wrote ${safeText(r.output)} (${r.format}, ${r.bytes} ` +
        `bytes${r.metric ? `, ${r.metric} over ${r.stacks} stacks` : ""})`,
    ),
});

export const openCommand = defineCommand({
  meta: {
    name: "open",
    description:
      "Serve a run's or artifact's profile to the speedscope viewer on 127.0.0.1 only and " +
      "print the URL; stops on Ctrl-C or after --timeout.\n" +
      "Example:\n  flameox open sha256:1a2b3c4d --timeout 600",
  },
  args: {
    ...commonArgs,
    run_or_artifact: { type: "positional", required: true },
    metric: metricArg,
    port: { type: "string", description: "Port on 127.0.0.1 (default: any free port)" },
    timeout: { type: "string", description: "Seconds to serve before stopping (default 900)" },
  },
  run: ({ args }) =>
    execute(
      args,
      async (s) => {
        const [{ answerProfileExport, ProfileExportRequest }, { checkRequest }] = await Promise.all(
          [viewRequests(), checking()],
        );
        const exported = await answerProfileExport(
          s,
          checkRequest(ProfileExportRequest, {
            run_or_artifact: args.run_or_artifact,
            format: "speedscope",
            metric: args.metric,
          }),
        );
        const { serveProfile } = await import("../viewer-server.ts");
        const timeoutSeconds = positiveInt("timeout", args.timeout) ?? 900;
        const viewer = serveProfile(exported.bytes, {
          port: positiveInt("port", args.port),
          timeoutSeconds,
        });
        // The URL is needed while serving, before the result is printed at the end.
        process.stdout.write(
          args.json
            ? `${JSON.stringify({ url: viewer.url })}\n`
            : `open ${viewer.url}\n(serving on 127.0.0.1 for ${timeoutSeconds} s; Ctrl-C stops)\n`,
        );
        const started = Date.now();
        const why = await viewer.stopped;
        return {
          ...exported.summary,
          url: viewer.url,
          stopped_by: why,
          served_seconds: Math.round((Date.now() - started) / 1000),
        };
      },
      (r) => `viewer stopped (${r.stopped_by}) after ${r.served_seconds} s`,
    ),
});
