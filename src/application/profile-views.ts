/**
 * Pictures, diffs and exports of profile evidence: the use cases behind `flameox
 * flamegraph`, `diff`, `export` and `artifacts get`. Each reads one pinned snapshot and
 * returns the bytes to write plus a summary that says what was drawn or written, so the
 * transports only choose where the bytes go.
 */
import { mkdir, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { FlameoxError } from "../domain/errors.ts";
import type { FrameMetric } from "../domain/evidence-schema.ts";
import {
  annotateDelta,
  boxCount,
  buildFlameTree,
  mergeSmallBoxes,
} from "../analysis/pictures/flame-tree.ts";
import { renderFlamegraphHtml, type PictureMeta } from "../analysis/pictures/flamegraph-html.ts";
import { renderFlamegraphSvg } from "../analysis/pictures/flamegraph-svg.ts";
import { GRANULARITIES, type Granularity } from "../analysis/pictures/frame-identity.ts";
import { diffProfiles, type DiffSort, type ProfileDiffResult } from "../analysis/profile-diff.ts";
import { type ProfileStacks, readStackSet, selectView } from "../analysis/profile-stacks.ts";
import { resolveSubject, type Subject } from "../analysis/subject.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace } from "../storage/workspace.ts";
import { toChromeTrace } from "./export/chrome-trace.ts";
import { toCollapsed } from "./export/collapsed.ts";
import { toPprof } from "./export/pprof.ts";
import { toSpeedscope } from "./export/speedscope.ts";
import { newOperationId } from "../domain/ids.ts";
import { EXPORT_FORMATS, type ExportFormat } from "../domain/export-formats.ts";
import { registerFile, type RegisteredArtifact } from "./register-artifact.ts";

export const PICTURE_FORMATS = ["html", "svg"] as const;
export type PictureFormat = (typeof PICTURE_FORMATS)[number];
export { EXPORT_FORMATS, type ExportFormat } from "../domain/export-formats.ts";

export interface FlamegraphRequest {
  subject: string;
  /** A differential picture: colour by change from this base, width by the subject. */
  diffBase?: string | null;
  format: PictureFormat;
  metric?: FrameMetric;
  granularity?: Granularity;
  filter?: string | null;
  icicle?: boolean;
  /** Picture width in pixels; boxes narrower than `minBoxPx` are merged. */
  widthPx?: number;
  minBoxPx?: number;
}

export interface FlamegraphSummary {
  corpus_commit_id: string;
  subject: string;
  diff_base: string | null;
  format: PictureFormat;
  metric: FrameMetric | null;
  unit: string;
  granularity: Granularity;
  total_value: number;
  stacks: number;
  boxes: number;
  merged_boxes: number;
  merged_value: number;
  filtered_out_value: number;
  notes: string[];
}

export interface Rendered<S> {
  bytes: Uint8Array;
  summary: S;
}

const DEFAULT_WIDTH = 1200;

export async function renderFlamegraph(
  ws: Workspace,
  snapshot: SnapshotHandle,
  request: FlamegraphRequest,
): Promise<Rendered<FlamegraphSummary>> {
  const granularity = request.granularity ?? "function";
  if (!GRANULARITIES.includes(granularity))
    invalid("granularity", `one of ${GRANULARITIES.join(", ")}`, granularity);
  const filter = compileFilter(request.filter);
  const width = request.widthPx ?? DEFAULT_WIDTH;
  if (!Number.isInteger(width) || width < 200 || width > 20000)
    invalid("width", "an integer from 200 to 20000", String(width));
  const subject = resolveSubject(ws, snapshot, request.subject);
  const baseSubject = request.diffBase ? resolveSubject(ws, snapshot, request.diffBase) : null;
  if (baseSubject && baseSubject.id === subject.id) {
    throw new FlameoxError(
      "COMPARISON_INVALID",
      `Cannot draw a differential flamegraph of ${subject.id} against itself`,
      { details: { field: "diff" } },
    );
  }
  const set = await readStackSet(snapshot, subject);
  const view = await selectView(snapshot, set, request.metric ?? null);
  requireStacks(view, subject);
  const rootName = `all (${subject.id})`;
  let tree = buildFlameTree(view.stacks, view.frames, { granularity, filter, rootName });
  const notes = [
    `${view.metric}: ${formatValue(view.totalValue, view.unit)} over ${view.stacks.length} ` +
      `stacks, corpus commit ${snapshot.commitId}`,
  ];
  if (baseSubject) {
    const baseView = await selectView(
      snapshot,
      await readStackSet(snapshot, baseSubject),
      view.metric,
    );
    requireStacks(baseView, baseSubject);
    const base = buildFlameTree(baseView.stacks, baseView.frames, {
      granularity,
      filter,
      rootName,
    });
    annotateDelta(tree, base);
    notes.push(
      `differential: width is ${subject.id}; red grew and blue shrank in share of the total ` +
        `against ${baseSubject.id} (${formatValue(baseView.totalValue, baseView.unit)}); ` +
        `frames only in the base are not drawn`,
    );
  }
  const minBoxPx = request.minBoxPx ?? 0.5;
  tree = mergeSmallBoxes(tree, (tree.root.total * minBoxPx) / width);
  if (filter)
    notes.push(
      `filter /${filter.source}/ kept ${tree.stacks} ` +
        `stacks; ${formatValue(tree.filteredOutValue, view.unit)} left out`,
    );
  if (tree.mergedBoxes > 0)
    notes.push(
      `${tree.mergedBoxes} boxes narrower than ${minBoxPx}px ` +
        `(${formatValue(tree.mergedValue, view.unit)}) merged into "[n small frames]" boxes`,
    );
  const meta: PictureMeta = {
    title:
      (baseSubject ? "Differential flamegraph" : request.icicle ? "Icicle graph" : "Flamegraph") +
      ` of ${subject.id} (${view.metric})`,
    notes,
    unit: view.unit,
    icicle: request.icicle ?? false,
    differential: baseSubject !== null,
  };
  const text =
    request.format === "svg"
      ? renderFlamegraphSvg(tree.root, meta, (v) => formatValue(v, view.unit), width)
      : renderFlamegraphHtml(tree.root, meta);
  return {
    bytes: new TextEncoder().encode(text),
    summary: {
      corpus_commit_id: snapshot.commitId,
      subject: subject.id,
      diff_base: baseSubject?.id ?? null,
      format: request.format,
      metric: view.metric,
      unit: view.unit,
      granularity,
      total_value: tree.root.total,
      stacks: tree.stacks,
      boxes: boxCount(tree),
      merged_boxes: tree.mergedBoxes,
      merged_value: tree.mergedValue,
      filtered_out_value: tree.filteredOutValue,
      notes,
    },
  };
}

export interface DiffRequest {
  base: string;
  candidate: string;
  metric?: FrameMetric;
  sort?: DiffSort;
  normalize?: boolean;
  limit: number;
  cursor?: string | null;
}

export function diffSubjects(
  ws: Workspace,
  snapshot: SnapshotHandle,
  request: DiffRequest,
): Promise<ProfileDiffResult> {
  const base = resolveSubject(ws, snapshot, request.base);
  const candidate = resolveSubject(ws, snapshot, request.candidate);
  return diffProfiles(snapshot, base, candidate, request);
}

export interface ExportSummary {
  corpus_commit_id: string;
  subject: string;
  format: ExportFormat;
  metric: FrameMetric | null;
  unit: string;
  stacks: number;
  total_value: number;
  bytes: number;
}

export async function exportProfile(
  ws: Workspace,
  snapshot: SnapshotHandle,
  request: { subject: string; format: ExportFormat; metric?: FrameMetric },
): Promise<Rendered<ExportSummary>> {
  if (!EXPORT_FORMATS.includes(request.format))
    invalid("format", `one of ${EXPORT_FORMATS.join(", ")}`, request.format);
  const subject = resolveSubject(ws, snapshot, request.subject);
  const summary = (view: ProfileStacks | null, bytes: Uint8Array): Rendered<ExportSummary> => ({
    bytes,
    summary: {
      corpus_commit_id: snapshot.commitId,
      subject: subject.id,
      format: request.format,
      metric: view?.metric ?? null,
      unit: view?.unit ?? "",
      stacks: view?.stacks.length ?? 0,
      total_value: view?.totalValue ?? 0,
      bytes: bytes.byteLength,
    },
  });
  if (request.format === "chrome-trace")
    return summary(null, new TextEncoder().encode(await toChromeTrace(snapshot, subject)));
  const view = await selectView(
    snapshot,
    await readStackSet(snapshot, subject),
    request.metric ?? null,
  );
  requireStacks(view, subject);
  if (request.format === "pprof") return summary(view, toPprof(view));
  const text = request.format === "speedscope" ? toSpeedscope(view, subject.id) : toCollapsed(view);
  return summary(view, new TextEncoder().encode(text));
}

/**
 * Registers a written picture as an artifact of the run it shows (an artifact subject's
 * first run), so an agent can hand a person a stored, content-addressed file rather than
 * a path that may change.
 */
export async function registerPicture(
  ws: Workspace,
  snapshot: SnapshotHandle,
  subjectRef: string,
  path: string,
  format: PictureFormat,
): Promise<RegisteredArtifact & { run_id: string }> {
  const subject = resolveSubject(ws, snapshot, subjectRef);
  const runId = subject.runIds[0];
  if (!runId)
    throw new FlameoxError(
      "RUN_NOT_FOUND",
      `${subject.id} has no run in the pinned commit to register the picture against`,
    );
  const stagingDir = join(ws.paths.staging, newOperationId());
  await mkdir(stagingDir, { recursive: true });
  try {
    const registered = await registerFile(ws, path, stagingDir, {
      runId,
      displayName: basename(path),
      kind: "rendered_picture",
      mediaType: format === "svg" ? "image/svg+xml" : "text/html",
      role: "rendering",
      producer: "flameox",
      producerVersion: null,
      sensitivity: "normal",
    });
    return { ...registered, run_id: runId };
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}

function requireStacks(view: ProfileStacks, subject: Subject): void {
  if (view.stacks.length > 0) return;
  const metrics = view.metricsAvailable.join(", ") || "none";
  throw new FlameoxError(
    "EVIDENCE_UNAVAILABLE",
    `${subject.id} has no ${view.metric ?? "profile"} stacks in the pinned commit (stack ` +
      `metrics there: ${metrics})`,
    {
      details: { field: "metric" },
    },
  );
}

function compileFilter(source: string | null | undefined): RegExp | undefined {
  if (!source) return undefined;
  if (source.length > 500)
    invalid(
      "filter",
      "a regular expression of at most 500 characters",
      `${source.length} characters`,
    );
  try {
    return new RegExp(source);
  } catch (error) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected --filter to be a regular expression: ${(error as Error).message}`,
      { details: { field: "filter" } },
    );
  }
}

function invalid(field: string, expected: string, found: string): never {
  throw new FlameoxError(
    "INVALID_ARGUMENTS",
    `Expected ${field} to be ${expected} but found ${JSON.stringify(found)}`,
    { details: { field } },
  );
}

export function formatValue(value: number, unit: string): string {
  if (unit === "ns") {
    for (const [u, d] of [
      ["s", 1e9],
      ["ms", 1e6],
      ["µs", 1e3],
    ] as const)
      if (Math.abs(value) >= d) return `${(value / d).toFixed(2)} ${u}`;
    return `${value} ns`;
  }
  if (unit === "bytes") {
    for (const [u, d] of [
      ["GiB", 2 ** 30],
      ["MiB", 2 ** 20],
      ["KiB", 2 ** 10],
    ] as const)
      if (Math.abs(value) >= d) return `${(value / d).toFixed(2)} ${u}`;
    return `${value} B`;
  }
  return `${value} ${unit}`;
}
