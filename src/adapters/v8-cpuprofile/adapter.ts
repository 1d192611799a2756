/**
 * The `v8-cpuprofile` adapter: `.cpuprofile` files from `node --cpu-prof`,
 * `bun --cpu-prof` and Chrome DevTools (including the legacy `head` tree form), as
 * `cpu_time` measurements, call edges and stacks.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { FrameRegistry } from "../common/frame-registry.ts";
import { MeasureAccumulator } from "../common/measure-accumulator.ts";
import { deepStacksLimitation, StackTrie } from "../common/stack-trie.ts";
import { NsClock } from "../common/time-ns.ts";
import { SINGLE_TRACK } from "../common/track.ts";
import {
  normalizeSampledProfile,
  type SampledProfileStats,
} from "../v8-sample-tree/normalize-sampled-profile.ts";
import { v8CpuProfileDescription } from "./description.ts";
import { type ParsedCpuProfile, scanCpuProfile } from "./scan-profile.ts";

const NAME = v8CpuProfileDescription.name;
const VERSION = v8CpuProfileDescription.version;

export const v8CpuProfileAdapter: ProducerAdapter = {
  ...v8CpuProfileDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    // The profile's tables are per distinct frame and stack, small enough to build whole.
    return {
      ...cpuProfileEvidence(await scanCpuProfile(input.chunks, input.limits, input.payloadBytes)),
      streamed: [],
    };
  },
};

/** The evidence of a parsed profile. */
export function cpuProfileEvidence({ profile, legacyHead }: ParsedCpuProfile): NormalizedEvidence {
  const frames = new FrameRegistry();
  const cpu = new MeasureAccumulator("cpu_time");
  const stacks = new StackTrie("cpu_time");
  const clock = new NsClock(profile.startTimeUs);
  const stats = normalizeSampledProfile(
    profile,
    { frames, cpu, stacks, clock, track: 0 },
    { format: "cpuprofile", unknownSamples: "fail" },
  );

  const tables = emptyTables();
  frames.emit(tables.frames);
  cpu.emit(tables.frame_measurements, tables.call_edges, frames, () => SINGLE_TRACK);
  stacks.emit(tables.stacks, frames, clock, () => SINGLE_TRACK);
  return {
    adapter: NAME,
    adapterVersion: VERSION,
    producer: null,
    producerVersion: null,
    tables,
    limitations: [
      ...cpuProfileLimitations(stats, legacyHead, frames.countUnsymbolized()),
      ...deepStacksLimitation([stacks]),
    ],
    summary: {
      format: legacyHead ? "legacy_head" : "nodes",
      nodes: stats.nodes,
      frames: frames.size,
      samples: stats.samples,
      total_cpu_time_ns: stats.totalNs,
      metrics: stats.attributedSamples > 0 ? "cpu_time" : "",
    },
  };
}

export function cpuProfileLimitations(
  stats: SampledProfileStats,
  legacyHead: boolean,
  unsymbolized: number,
): Limitation[] {
  const limitations: Limitation[] = [];
  if (legacyHead)
    limitations.push({
      code: "legacy_head_format",
      message: "Legacy `head` tree profile converted to the node-list form",
    });
  if (stats.samples === 0)
    limitations.push({
      code: "no_samples",
      message: "The profile has no samples, so there is no CPU time to attribute",
    });
  if (unsymbolized > 0)
    limitations.push({
      code: "missing_symbols",
      message: "Frames without a function name (anonymous)",
      count: unsymbolized,
    });
  if (stats.clampedDeltas > 0) {
    limitations.push({
      code: "inconsistent_time_deltas",
      message: "Negative time deltas; the affected samples were given a duration of 0",
      count: stats.clampedDeltas,
    });
  }
  if (stats.missingDeltas > 0) {
    limitations.push({
      code: "missing_time_deltas",
      message: "Samples without a time delta; their durations are estimated",
      count: stats.missingDeltas,
    });
  }
  if (stats.rootSamples > 0) {
    limitations.push({
      code: "root_samples",
      message: "Samples on the (root) node belong to no frame and are not attributed",
      count: stats.rootSamples,
    });
  }
  if (stats.lastSampleDuration === "mean") {
    limitations.push({
      code: "last_sample_duration_estimated",
      message: "No usable endTime: the last sample was given the mean sample duration",
      count: 1,
    });
  }
  return limitations;
}
