/**
 * The checks a scanned speedscope file must pass before anything is measured, made in
 * the order of its schema (https://www.speedscope.app/file-format-schema.json) so a
 * wrong file fails naming the first wrong field: `shared.frames` (a string name each),
 * `profiles`, and per profile its unit, then its type with its events (`O`/`C` at a
 * number on a frame index) or its samples (root-first frame index lists) and weights
 * (one non-negative number per sample; all 1 when absent). Then the limit on samples and
 * events, and the magnitudes: values are stored as int64 ns (or bytes, counts) and
 * summed, edges across profiles too, so what a metric can add up to (sample weights; an
 * evented profile's time span, which bounds its spans' sum) must stay below 2^53. One
 * pass over the spools; nothing per sample is kept.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import { expectationFailed, parseFailed, tooLarge } from "../json-guard.ts";
import { TAG_ABSENT, TAG_ARRAY, TAG_NUMBER, TAG_OBJECT, sampleOfKind } from "../wasm/json-batch.ts";
import {
  EVENT_CLOSE,
  EVENT_OPEN,
  type SpeedscopeScan,
  type SpoolRange,
} from "./scan-speedscope.ts";
import type { SpeedscopeFrame } from "./speedscope-frames.ts";
import { cursorsOf } from "./speedscope-records.ts";
import { metricOf, SPEEDSCOPE_FORMAT, type SpeedscopeUnit, UNITS } from "./speedscope-units.ts";

export interface CheckedProfile {
  type: "sampled" | "evented";
  name: string;
  unit: SpeedscopeUnit;
  startValue: number;
  endValue: number;
  /** Records of the samples spool (sampled) or events spool (evented). */
  samples: SpoolRange;
  /** Records of the weights spool; null when the file gives none (every weight is 1). */
  weights: SpoolRange | null;
  events: SpoolRange;
}

export interface CheckedSpeedscope {
  frames: SpeedscopeFrame[];
  profiles: CheckedProfile[];
  exporter: string | null;
  version: string | null;
  name: string | null;
}

const kindName = (kind: number) => sampleOfKind(kind);

export function checkSpeedscope(scan: SpeedscopeScan, maxEvents: number): CheckedSpeedscope {
  if (scan.topKind !== TAG_OBJECT)
    throw expectationFailed(
      SPEEDSCOPE_FORMAT,
      "the top level",
      "an object",
      kindName(scan.topKind),
    );
  if (scan.sharedKind !== TAG_OBJECT || scan.framesKind !== TAG_ARRAY)
    throw expectationFailed(
      SPEEDSCOPE_FORMAT,
      "shared.frames",
      "an array",
      kindName(scan.sharedKind === TAG_OBJECT ? scan.framesKind : scan.sharedKind),
    );
  const frames = scan.frames.map((f, i): SpeedscopeFrame => {
    if ("badKind" in f)
      throw expectationFailed(
        SPEEDSCOPE_FORMAT,
        `shared.frames[${i}].name`,
        "a string",
        kindName(f.badKind),
      );
    return f;
  });
  if (scan.profilesKind !== TAG_ARRAY)
    throw expectationFailed(SPEEDSCOPE_FORMAT, "profiles", "an array", kindName(scan.profilesKind));
  const frameCount = frames.length;
  const cursors = cursorsOf(scan.spools);
  const badFrame = (entry: number, where: string) =>
    expectationFailed(
      SPEEDSCOPE_FORMAT,
      where,
      `a frame index below ${frameCount}`,
      kindName(entry < 0 ? -entry : TAG_NUMBER),
    );
  const extents: number[] = [];
  const profiles = scan.profiles.map((p, i): CheckedProfile => {
    const at = `profiles[${i}]`;
    if (p.kind !== TAG_OBJECT)
      throw expectationFailed(SPEEDSCOPE_FORMAT, at, "an object", kindName(p.kind));
    if (!(UNITS as readonly unknown[]).includes(p.unit))
      throw parseFailed(
        SPEEDSCOPE_FORMAT,
        `expected ${at}.unit to be one of ${UNITS.join(", ")} but found ${JSON.stringify(p.unit)}`,
      );
    const unit = p.unit as SpeedscopeUnit;
    const base = {
      name: p.name ?? `profile ${i}`,
      unit,
      startValue: p.startValue,
      endValue: p.endValue,
      samples: p.samples,
      events: p.events,
    };
    if (p.type === "evented") {
      if (p.events.kind !== TAG_ARRAY)
        throw expectationFailed(
          SPEEDSCOPE_FORMAT,
          `${at}.events`,
          "an array",
          kindName(p.events.kind),
        );
      const { scale } = metricOf("evented", unit);
      const e = cursors.events;
      e.seek(p.events.start);
      let extent = 0;
      for (let k = 0; k < p.events.count; k++) {
        e.next();
        if (e.selfKind !== TAG_OBJECT || (e.type !== EVENT_OPEN && e.type !== EVENT_CLOSE))
          throw expectationFailed(
            SPEEDSCOPE_FORMAT,
            `${at}.events[${k}].type`,
            '"O" or "C"',
            kindName(e.selfKind === TAG_OBJECT ? e.typeKind : e.selfKind),
          );
        if (e.atKind !== TAG_NUMBER || !Number.isFinite(e.at))
          throw expectationFailed(
            SPEEDSCOPE_FORMAT,
            `${at}.events[${k}].at`,
            "a number",
            kindName(e.atKind),
          );
        if (e.frame < 0 || e.frame >= frameCount)
          throw badFrame(e.frame, `${at}.events[${k}].frame`);
        extent = Math.max(extent, 2 * Math.abs(e.at * scale), 2 * Math.abs(p.endValue * scale));
      }
      extents.push(extent);
      return { type: "evented", ...base, weights: null };
    }
    if (p.type === "sampled") {
      if (p.samples.kind !== TAG_ARRAY)
        throw expectationFailed(
          SPEEDSCOPE_FORMAT,
          `${at}.samples`,
          "an array",
          kindName(p.samples.kind),
        );
      const s = cursors.samples;
      s.seek(p.samples.start);
      for (let k = 0; k < p.samples.count; k++) {
        s.next();
        if (s.kind !== TAG_ARRAY)
          throw expectationFailed(
            SPEEDSCOPE_FORMAT,
            `${at}.samples[${k}]`,
            "an array",
            kindName(s.kind),
          );
        for (let d = 0; d < s.length; d++) {
          const f = s.frames[d]!;
          if (f < 0 || f >= frameCount) throw badFrame(f, `${at}.samples[${k}][${d}]`);
        }
      }
      const { scale } = metricOf("sampled", unit);
      let extent = 0;
      const n = p.samples.count;
      if (p.weights.kind === TAG_ABSENT) {
        for (let k = 0; k < n; k++) extent += scale;
        extents.push(extent);
        return { type: "sampled", ...base, weights: null };
      }
      const weightsWrong = () =>
        parseFailed(
          SPEEDSCOPE_FORMAT,
          `expected ${at}.weights to be ${n} non-negative numbers, one per sample`,
        );
      if (p.weights.kind !== TAG_ARRAY || p.weights.count !== n) throw weightsWrong();
      const w = cursors.weights;
      w.seek(p.weights.start);
      for (let k = 0; k < n; k++) {
        w.next();
        if (w.kind !== TAG_NUMBER || !Number.isFinite(w.value) || w.value < 0) throw weightsWrong();
        extent += w.value * scale;
      }
      extents.push(extent);
      return { type: "sampled", ...base, weights: p.weights };
    }
    throw parseFailed(
      SPEEDSCOPE_FORMAT,
      `expected ${at}.type to be "evented" or "sampled" but found ${JSON.stringify(p.type)}`,
    );
  });
  const total = profiles.reduce(
    (n, p) => n + (p.type === "sampled" ? p.samples.count : p.events.count),
    0,
  );
  if (total > maxEvents) throw tooLarge(SPEEDSCOPE_FORMAT, "samples and events", total, maxEvents);
  const totals = new Map<FrameMetric, number>();
  for (const [i, p] of profiles.entries()) {
    const { metric, unit } = metricOf(p.type, p.unit);
    const sum = (totals.get(metric) ?? 0) + extents[i]!;
    totals.set(metric, sum);
    if (!(sum <= Number.MAX_SAFE_INTEGER))
      throw parseFailed(
        SPEEDSCOPE_FORMAT,
        `profiles up to profiles[${i}] hold ${sum} ${unit} of ${metric}, beyond 2^53, which ` +
          `cannot be summed exactly`,
      );
  }
  return { frames, profiles, exporter: scan.exporter, version: scan.version, name: scan.name };
}
