/**
 * A decoded pprof profile → frames and, per imported sample type, frame measurements,
 * call edges and stacks. Per sample and metric: the value goes to the leaf frame's self,
 * to every distinct frame on the path's inclusive, to every distinct caller→callee pair
 * on the path, and to the path's stack. Samples with a zero value for a type do not
 * count for it. A label naming the thread splits measurements by thread.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { FrameRegistry } from "../common/frame-registry.ts";
import { StackMeasures } from "../common/stack-measures.ts";
import { deepStacksLimitation } from "../common/stack-trie.ts";
import { NsClock } from "../common/time-ns.ts";
import type { TrackInfo } from "../common/track.ts";
import { tooLarge } from "../json-guard.ts";
import { PprofFrames } from "./pprof-frames.ts";
import { PPROF_FORMAT, type PprofInput } from "./pprof-input.ts";
import { metricOf, type MetricOfType } from "./pprof-metrics.ts";

const THREAD_LABEL = /^thread[ _.]?(name)?$/i;

export function pprofEvidence(
  input: PprofInput,
  maxSamples: number,
  adapter: { name: string; version: string },
): NormalizedEvidence {
  if (input.sampleCount > maxSamples)
    throw tooLarge(PPROF_FORMAT, "samples", input.sampleCount, maxSamples);
  const str = (i: number) => input.strings[i] ?? "";
  const frames = new FrameRegistry();
  const locations = new PprofFrames(input, frames);
  const types = input.sampleTypes.map((t) => ({ type: str(t.type), unit: str(t.unit) }));
  const imported: { index: number; spec: MetricOfType; measured: StackMeasures }[] = [];
  const skippedTypes: string[] = [];
  types.forEach((t, index) => {
    const spec = metricOf(t.type, t.unit);
    if (!spec || imported.some((m) => m.spec.metric === spec.metric))
      skippedTypes.push(`${t.type}/${t.unit}`);
    else imported.push({ index, spec, measured: new StackMeasures(spec.metric, spec.unit) });
  });

  const tracks: TrackInfo[] = [{ id: null, processName: null, threadName: null }];
  const trackByThread = new Map<string, number>();
  const labelKeys = new Set<string>();
  let unresolved = 0;
  let stackless = 0;
  const path: number[] = [];
  for (let i = 0; i < input.sampleCount; i++) {
    path.length = 0;
    for (let k = input.locationStart[i + 1]! - 1; k >= input.locationStart[i]!; k--) {
      const expanded = locations.of(input.locationIds[k]!);
      if (expanded === null) unresolved++;
      else for (const f of expanded) path.push(f);
    }
    let track = 0;
    for (const label of input.labels[i] ?? []) {
      const key = str(label.key);
      labelKeys.add(key);
      if (THREAD_LABEL.test(key) && label.str !== 0) {
        const thread = str(label.str);
        track =
          trackByThread.get(thread) ??
          tracks.push({ id: `thread:${thread}`, processName: null, threadName: thread }) - 1;
        trackByThread.set(thread, track);
      }
    }
    if (path.length === 0) {
      stackless++;
      path.push(locations.noStackFrame());
    }
    for (const m of imported) {
      const value = input.values[i * types.length + m.index]! * m.spec.scale;
      if (value !== 0) m.measured.add(path, track, 1, value);
    }
  }

  const tables = emptyTables();
  frames.emit(tables.frames);
  const lookup = (t: number) => tracks[t]!;
  for (const m of imported)
    m.measured.measures.emit(tables.frame_measurements, tables.call_edges, frames, lookup);
  for (const m of imported) m.measured.stacks.emit(tables.stacks, frames, new NsClock(0), lookup);
  return {
    adapter: adapter.name,
    adapterVersion: adapter.version,
    producer: null,
    producerVersion: null,
    tables,
    limitations: [
      ...pprofLimitations(
        input,
        skippedTypes,
        unresolved,
        frames.countUnsymbolized(),
        [...labelKeys].filter((k) => !THREAD_LABEL.test(k)),
      ),
      ...(stackless > 0
        ? [
            {
              code: "samples_without_stack",
              message:
                "Samples with no stack (or none of whose locations resolve) are kept on a " +
                'root frame named "(no stack)", so totals equal the profile\'s',
              count: stackless,
            },
          ]
        : []),
      ...deepStacksLimitation(imported.map((m) => m.measured.stacks)),
    ],
    summary: {
      samples: input.sampleCount,
      locations: input.locations.length,
      functions: input.functions.length,
      frames: frames.size,
      sample_types: types.map((t) => `${t.type}/${t.unit}`).join(","),
      metrics: imported.map((m) => m.spec.metric).join(","),
      duration_ns: Number(input.durationNanos),
      threads: trackByThread.size,
    },
  };
}

function pprofLimitations(
  input: PprofInput,
  skippedTypes: string[],
  unresolved: number,
  unsymbolized: number,
  otherLabels: string[],
): Limitation[] {
  const out: Limitation[] = [];
  if (input.sampleCount === 0)
    out.push({ code: "no_samples", message: "The profile has no samples" });
  if (input.sampleTypes.length === 0)
    out.push({
      code: "no_sample_types",
      message: "The profile declares no sample types, so its values cannot be named",
    });
  if (skippedTypes.length > 0)
    out.push({
      code: "sample_type_not_imported",
      message: `Sample types without a flameox metric: ${skippedTypes.slice(0, 5).join(", ")}`,
      count: skippedTypes.length,
    });
  if (unresolved > 0)
    out.push({
      code: "unresolved_locations",
      message: "Sample location ids missing from the location table; left out of their stacks",
      count: unresolved,
    });
  if (unsymbolized > 0)
    out.push({
      code: "missing_symbols",
      message: "Frames without a function name (addresses or unnamed functions)",
      count: unsymbolized,
    });
  if (otherLabels.length > 0)
    out.push({
      code: "labels_not_imported",
      message: `Sample labels kept only as counts: ${otherLabels.slice(0, 5).join(", ")}`,
      count: otherLabels.length,
    });
  return out;
}
