/**
 * Which flameox metric each callgrind event column becomes. Valgrind's own events keep
 * their meaning (`Ir` instructions executed, `Dr`/`Dw` data reads and writes, the cache
 * simulator's misses, the branch simulator's branches); other producers write the
 * format with a unit in the name: pprof's `-callgrind` output (`cpu(ms)`,
 * `inuse_space(MB)`, `alloc_objects(count)`) and Xdebug's (`Time_(10ns)`), which are
 * scaled to ns or bytes. An event that fits no metric (Xdebug's `Memory_(bytes)` is a
 * net change that can go negative) is not imported and is named in a limitation.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";

export interface EventMetric {
  metric: FrameMetric;
  unit: string;
  /** Multiplier from the file's unit to `unit`. */
  scale: number;
}

const VALGRIND: Record<string, FrameMetric> = {
  ir: "instructions",
  instructions: "instructions",
  cycles: "cycles",
  dr: "data_reads",
  dw: "data_writes",
  i1mr: "l1_instruction_misses",
  d1mr: "l1_data_read_misses",
  d1mw: "l1_data_write_misses",
  ilmr: "ll_instruction_misses",
  dlmr: "ll_data_read_misses",
  dlmw: "ll_data_write_misses",
  // Before Valgrind 3.4 the last level was called L2.
  i2mr: "ll_instruction_misses",
  d2mr: "ll_data_read_misses",
  d2mw: "ll_data_write_misses",
  bc: "conditional_branches",
  bcm: "conditional_branch_misses",
  bi: "indirect_branches",
  bim: "indirect_branch_misses",
};

const TIME_NS: Record<string, number> = {
  ns: 1,
  nanoseconds: 1,
  us: 1e3,
  µs: 1e3,
  microseconds: 1e3,
  ms: 1e6,
  milliseconds: 1e6,
  s: 1e9,
  seconds: 1e9,
};
/**
 * pprof's memory units are binary multiples whatever their names say (measurement/measurement.go).
 */
const BYTES: Record<string, number> = {
  b: 1,
  byte: 1,
  bytes: 1,
  kb: 2 ** 10,
  mb: 2 ** 20,
  gb: 2 ** 30,
  tb: 2 ** 40,
  pb: 2 ** 50,
};
const COUNTED = new Set<FrameMetric>(["samples", "alloc_objects", "inuse_objects", "contentions"]);
const SPACE = new Set<FrameMetric>(["alloc_space", "inuse_space"]);

/** `cpu(ms)`, `Time_(10ns)`, `inuse_space(MB)`: the name and its unit with an optional factor. */
const WITH_UNIT = /^(.*?)_?\((\d*)\s*([^()\d][^()]*)\)$/;

export function eventMetric(event: string): EventMetric | null {
  const valgrind = VALGRIND[event.toLowerCase()];
  if (valgrind !== undefined) return { metric: valgrind, unit: "count", scale: 1 };
  const m = WITH_UNIT.exec(event);
  const base = (m ? m[1]! : event).toLowerCase();
  const factor = m && m[2] !== "" ? Number(m[2]) : 1;
  const unit = m ? m[3]!.trim().toLowerCase() : "";
  const ns = TIME_NS[unit];
  if (ns !== undefined) {
    if (base === "cpu" || base === "cpu_time")
      return { metric: "cpu_time", unit: "ns", scale: ns * factor };
    // Xdebug's profiler measures elapsed time per call.
    if (base === "time" || base === "wall" || base === "wall_time")
      return { metric: "wall_time", unit: "ns", scale: ns * factor };
    if (base === "delay") return { metric: "delay", unit: "ns", scale: ns * factor };
    return null;
  }
  const metric = base as FrameMetric;
  if (SPACE.has(metric)) {
    const bytes = BYTES[unit];
    return bytes === undefined ? null : { metric, unit: "bytes", scale: bytes * factor };
  }
  if (COUNTED.has(metric) && (unit === "" || unit === "count") && factor === 1)
    return { metric, unit: "count", scale: 1 };
  return null;
}
