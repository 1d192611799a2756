/**
 * Which flameox metric each perf event's samples become (Linux perf and Android
 * simpleperf name their events alike). A sample's period is what it
 * stands for: nanoseconds for the software clocks (cpu-clock, task-clock), events
 * counted for hardware counters. So clocks become `cpu_time` and cycles and instructions
 * their own metrics, weighted by period; any other event (or one printed without its
 * period) is counted as `samples`. Each metric takes one event: a second event wanting a
 * taken metric (cpu-clock and task-clock together) is not imported and is named in a
 * limitation, because summing both would count the same time twice.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";

export interface EventMetric {
  metric: FrameMetric;
  unit: string;
  /** Weighted by the sample's period; otherwise each sample counts 1. */
  byPeriod: boolean;
}

/** perf's modifier letters (`:u`, `:ppp`, `:uppp`, `:pppH`) after an event name. */
const MODIFIERS = /:[ukhIGHpPSDWe]+$/;
const PMU_EVENT = /^[\w.-]+\/([\w.-]+)\/[ukhIGHpPSDWe]*$/;

/**
 * The event's name without modifiers or PMU wrapper: `cycles:uppp` → `cycles`, `cpu/cycles/u` →
 * `cycles`.
 */
export function baseEventName(event: string): string {
  const pmu = PMU_EVENT.exec(event);
  return pmu ? pmu[1]! : event.replace(MODIFIERS, "");
}

function wanted(base: string, hasPeriod: boolean): EventMetric {
  if (hasPeriod) {
    if (base === "cpu-clock" || base === "task-clock")
      return { metric: "cpu_time", unit: "ns", byPeriod: true };
    if (base === "cycles" || base === "cpu-cycles")
      return { metric: "cycles", unit: "count", byPeriod: true };
    if (base === "instructions") return { metric: "instructions", unit: "count", byPeriod: true };
  }
  return { metric: "samples", unit: "count", byPeriod: false };
}

export class EventMetrics {
  private readonly byEvent = new Map<string, EventMetric | null>();
  private readonly taken = new Set<FrameMetric>();
  readonly skipped: string[] = [];
  /** Samples of events that were not imported. */
  skippedSamples = 0;

  /** The metric of an event (decided by its first sample), or null when it is not imported. */
  of(event: string | null, hasPeriod: boolean): EventMetric | null {
    const key = event ?? "";
    const known = this.byEvent.get(key);
    if (known !== undefined) return known;
    const want = wanted(baseEventName(key), hasPeriod);
    const chosen = this.taken.has(want.metric) ? null : want;
    if (chosen) this.taken.add(chosen.metric);
    else this.skipped.push(key === "" ? "(unnamed event)" : key);
    this.byEvent.set(key, chosen);
    return chosen;
  }

  get events(): string[] {
    return [...this.byEvent.keys()].filter((e) => e !== "");
  }
}
