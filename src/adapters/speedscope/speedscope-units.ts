/**
 * speedscope's units (https://www.speedscope.app/file-format-schema.json) and what each
 * becomes: a time unit is ns of `cpu_time` (sampled) or `wall_time` (evented: a frame open
 * from O to C); `bytes` is `alloc_space`; `none` is `samples` (a weight counts samples).
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";

export const SPEEDSCOPE_FORMAT = "speedscope profile";
export const UNITS = [
  "none",
  "nanoseconds",
  "microseconds",
  "milliseconds",
  "seconds",
  "bytes",
] as const;
export type SpeedscopeUnit = (typeof UNITS)[number];

export const NS_PER: Partial<Record<SpeedscopeUnit, number>> = {
  nanoseconds: 1,
  microseconds: 1e3,
  milliseconds: 1e6,
  seconds: 1e9,
};

export function metricOf(
  type: "sampled" | "evented",
  unit: SpeedscopeUnit,
): { metric: FrameMetric; unit: string; scale: number } {
  const ns = NS_PER[unit];
  if (ns !== undefined)
    return { metric: type === "sampled" ? "cpu_time" : "wall_time", unit: "ns", scale: ns };
  if (unit === "bytes") return { metric: "alloc_space", unit: "bytes", scale: 1 };
  return { metric: "samples", unit: "count", scale: 1 };
}
