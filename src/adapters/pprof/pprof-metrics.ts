/** pprof sample types → frame metrics with units (time scaled to ns). */
import type { FrameMetric } from "../../domain/evidence-schema.ts";

const BY_TYPE: Record<string, FrameMetric> = {
  cpu: "cpu_time",
  wall: "wall_time",
  samples: "samples",
  sample: "samples",
  alloc_space: "alloc_space",
  alloc_objects: "alloc_objects",
  inuse_space: "inuse_space",
  inuse_objects: "inuse_objects",
  contentions: "contentions",
  delay: "delay",
  // Hardware events as perf_to_profile (and flameox's own export of perf captures) names them.
  cycles: "cycles",
  instructions: "instructions",
};
const TIME_SCALE: Record<string, number> = {
  nanoseconds: 1,
  ns: 1,
  microseconds: 1e3,
  us: 1e3,
  milliseconds: 1e6,
  ms: 1e6,
  seconds: 1e9,
  s: 1e9,
};

export interface MetricOfType {
  metric: FrameMetric;
  unit: string;
  scale: number;
}

export function metricOf(type: string, unit: string): MetricOfType | null {
  const metric = BY_TYPE[type];
  if (!metric) return null;
  const timeScale = TIME_SCALE[unit];
  if (timeScale !== undefined) return { metric, unit: "ns", scale: timeScale };
  // A time metric in a non-time unit.
  if (metric === "cpu_time" || metric === "wall_time" || metric === "delay") return null;
  return { metric, unit: unit === "bytes" ? "bytes" : "count", scale: 1 };
}
