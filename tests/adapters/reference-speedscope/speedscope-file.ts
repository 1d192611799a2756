/**
 * The reference reader of a speedscope file (the whole payload parsed by JSON.parse; production
 * scans it with the WASM JSON scanner, src/adapters/speedscope/scan-speedscope.ts). The shape of
 * a speedscope file (https://www.speedscope.app/file-format-schema.json),
 * checked field by field so a wrong file fails with the field named: `shared.frames`
 * (name, optional file, line, col) and `profiles`, each `evented` (O/C events on frame
 * indexes at a value) or `sampled` (root-first frame index lists with weights), with a
 * unit. `exporter` (`speedscope@1.20.0`, `py-spy@0.3.14`) or the older `version` says
 * who wrote it.
 */
import { expectationFailed, isPlainObject, parseFailed } from "../../../src/adapters/json-guard.ts";
import type { SpeedscopeFrame } from "../../../src/adapters/speedscope/speedscope-frames.ts";
import {
  SPEEDSCOPE_FORMAT,
  type SpeedscopeUnit,
  UNITS,
} from "../../../src/adapters/speedscope/speedscope-units.ts";

export { SPEEDSCOPE_FORMAT, type SpeedscopeUnit };

export interface EventedProfile {
  type: "evented";
  name: string;
  unit: SpeedscopeUnit;
  startValue: number;
  endValue: number;
  events: { type: "O" | "C"; frame: number; at: number }[];
}

export interface SampledProfile {
  type: "sampled";
  name: string;
  unit: SpeedscopeUnit;
  startValue: number;
  endValue: number;
  samples: number[][];
  weights: number[];
}

export interface SpeedscopeFile {
  frames: SpeedscopeFrame[];
  profiles: (EventedProfile | SampledProfile)[];
  exporter: string | null;
  version: string | null;
  name: string | null;
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const optionalPositive = (v: unknown): number | null =>
  finite(v) && Number.isInteger(v) && v > 0 && v < 2 ** 31 ? v : null;

export function readSpeedscopeFile(value: unknown): SpeedscopeFile {
  if (!isPlainObject(value))
    throw expectationFailed(SPEEDSCOPE_FORMAT, "the top level", "an object", value);
  const shared = value.shared;
  if (!isPlainObject(shared) || !Array.isArray(shared.frames))
    throw expectationFailed(
      SPEEDSCOPE_FORMAT,
      "shared.frames",
      "an array",
      isPlainObject(shared) ? shared.frames : shared,
    );
  const frames = shared.frames.map((f, i): SpeedscopeFrame => {
    if (!isPlainObject(f) || typeof f.name !== "string")
      throw expectationFailed(
        SPEEDSCOPE_FORMAT,
        `shared.frames[${i}].name`,
        "a string",
        isPlainObject(f) ? f.name : f,
      );
    return {
      name: f.name,
      file: typeof f.file === "string" && f.file !== "" ? f.file : null,
      line: optionalPositive(f.line),
      col: optionalPositive(f.col),
    };
  });
  if (!Array.isArray(value.profiles))
    throw expectationFailed(SPEEDSCOPE_FORMAT, "profiles", "an array", value.profiles);
  const profiles = value.profiles.map((p, i) => readProfile(p, i, frames.length));
  return {
    frames,
    profiles,
    exporter: typeof value.exporter === "string" ? value.exporter : null,
    version: typeof value.version === "string" ? value.version : null,
    name: typeof value.name === "string" ? value.name : null,
  };
}

function readProfile(p: unknown, i: number, frameCount: number): EventedProfile | SampledProfile {
  const at = `profiles[${i}]`;
  if (!isPlainObject(p)) throw expectationFailed(SPEEDSCOPE_FORMAT, at, "an object", p);
  if (!(UNITS as readonly unknown[]).includes(p.unit))
    throw parseFailed(
      SPEEDSCOPE_FORMAT,
      `expected ${at}.unit to be one of ${UNITS.join(", ")} but found ${JSON.stringify(p.unit)}`,
    );
  const base = {
    name: typeof p.name === "string" ? p.name : `profile ${i}`,
    unit: p.unit as SpeedscopeUnit,
    startValue: finite(p.startValue) ? p.startValue : 0,
    endValue: finite(p.endValue) ? p.endValue : 0,
  };
  const frameIndex = (v: unknown, where: string): number => {
    if (!finite(v) || !Number.isInteger(v) || v < 0 || v >= frameCount)
      throw expectationFailed(SPEEDSCOPE_FORMAT, where, `a frame index below ${frameCount}`, v);
    return v;
  };
  if (p.type === "evented") {
    if (!Array.isArray(p.events))
      throw expectationFailed(SPEEDSCOPE_FORMAT, `${at}.events`, "an array", p.events);
    const events = p.events.map((e, k) => {
      if (!isPlainObject(e) || (e.type !== "O" && e.type !== "C"))
        throw expectationFailed(
          SPEEDSCOPE_FORMAT,
          `${at}.events[${k}].type`,
          '"O" or "C"',
          isPlainObject(e) ? e.type : e,
        );
      if (!finite(e.at))
        throw expectationFailed(SPEEDSCOPE_FORMAT, `${at}.events[${k}].at`, "a number", e.at);
      return {
        type: e.type as "O" | "C",
        frame: frameIndex(e.frame, `${at}.events[${k}].frame`),
        at: e.at,
      };
    });
    return { type: "evented", ...base, events };
  }
  if (p.type === "sampled") {
    if (!Array.isArray(p.samples))
      throw expectationFailed(SPEEDSCOPE_FORMAT, `${at}.samples`, "an array", p.samples);
    const samples = p.samples.map((s, k) => {
      if (!Array.isArray(s))
        throw expectationFailed(SPEEDSCOPE_FORMAT, `${at}.samples[${k}]`, "an array", s);
      return s.map((f, d) => frameIndex(f, `${at}.samples[${k}][${d}]`));
    });
    const weights = p.weights === undefined ? samples.map(() => 1) : p.weights;
    if (
      !Array.isArray(weights) ||
      weights.length !== samples.length ||
      !weights.every((w) => finite(w) && w >= 0)
    ) {
      throw parseFailed(
        SPEEDSCOPE_FORMAT,
        `expected ${at}.weights to be ${samples.length} non-negative numbers, one per sample`,
      );
    }
    return { type: "sampled", ...base, samples, weights: weights as number[] };
  }
  throw parseFailed(
    SPEEDSCOPE_FORMAT,
    `expected ${at}.type to be "evented" or "sampled" but found ${JSON.stringify(p.type)}`,
  );
}
