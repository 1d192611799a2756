/**
 * The reference implementation of the `chrome-trace` adapter: the whole payload through
 * JSON.parse, one object per event, every rule written out over whole in-memory tracks.
 * Production runs the streamed pipeline (src/adapters/chrome-trace/trace-pipeline.ts);
 * the equivalence tests run both and require the same tables, limitations and errors,
 * so a rule changed in one place and not the other fails them.
 */
import type { ExtractInput } from "../../../src/adapters/adapter.ts";
import { described, type ReferenceAdapter } from "../adapter-harness.ts";
import { chromeTraceAdapter } from "../../../src/adapters/chrome-trace/adapter.ts";
import { EmbeddedProfiles } from "../../../src/adapters/chrome-trace/embedded-profiles.ts";
import { traceLimitations } from "../../../src/adapters/chrome-trace/trace-limitations.ts";
import { TRACE_FORMAT, traceProducer } from "../../../src/adapters/chrome-trace/trace-producer.ts";
import { TrackRegistry } from "../../../src/adapters/chrome-trace/tracks.ts";
import { FrameRegistry } from "../../../src/adapters/common/frame-registry.ts";
import { MeasureAccumulator } from "../../../src/adapters/common/measure-accumulator.ts";
import { StackTrie } from "../../../src/adapters/common/stack-trie.ts";
import { tooLarge } from "../../../src/adapters/json-guard.ts";
import { FLAG_MISSING_DUR } from "../../../src/adapters/trace-events/event-flags.ts";
import { SliceFrames } from "../../../src/adapters/trace-events/slice-frames.ts";
import { SliceNester } from "../../../src/adapters/trace-events/slice-nester.ts";
import { emptyTables, type NormalizedEvidence } from "../../../src/domain/normalized-evidence.ts";
import { ArgsSerializer } from "./args-json.ts";
import { matchBeginEnd, type BeginEndCounts } from "./begin-end.ts";
import { scanEvents, type ScannedTrace } from "./event-scan.ts";
import { parseTrace } from "./parse-trace.ts";
import { nestTrackSlices } from "./slice-nesting.ts";
import { writeTraceEventRows } from "./trace-event-rows.ts";

const NAME = chromeTraceAdapter.name;
const VERSION = chromeTraceAdapter.version;

/** The production adapter's description with the reference `extract`. */
export const chromeTraceReference: ReferenceAdapter = {
  ...described(chromeTraceAdapter),
  extract(input: ExtractInput): NormalizedEvidence {
    const parsed = parseTrace(input.bytes, input.limits);
    const frames = new FrameRegistry();
    const tracks = new TrackRegistry();
    const profiles = new EmbeddedProfiles();
    const scan = scanEvents(parsed.events, tracks, new SliceFrames(frames), profiles);
    if (profiles.sampleCount > input.limits.maxEvents)
      throw tooLarge(
        TRACE_FORMAT,
        "CPU profile samples",
        profiles.sampleCount,
        input.limits.maxEvents,
      );

    const wall = new MeasureAccumulator("wall_time");
    const wallStacks = new StackTrie("wall_time");
    const { slices, beginEnd } = measureSlices(scan, frames.size, wall, wallStacks);

    const cpu = new MeasureAccumulator("cpu_time");
    const cpuStacks = new StackTrie("cpu_time");
    const profileStats = profiles.normalize({ frames, cpu, stacks: cpuStacks, clock: scan.clock });

    const tables = emptyTables();
    const args = new ArgsSerializer(input.limits.maxArgsBytes);
    const truncatedArgs = writeTraceEventRows(scan, tracks, args, tables.trace_events);
    const trackInfo = tracks.allInfo();
    trackInfo.forEach((info, t) =>
      tables.tracks.append({
        track_id: info.id ?? "-",
        pid: tracks.pids[t]!,
        tid: tracks.tids[t]!,
        process_name: info.processName,
        thread_name: info.threadName,
      }),
    );
    const lookup = (track: number) => trackInfo[track]!;
    frames.emit(tables.frames);
    wall.emit(tables.frame_measurements, tables.call_edges, frames, lookup);
    cpu.emit(tables.frame_measurements, tables.call_edges, frames, lookup);
    wallStacks.emit(tables.stacks, frames, scan.clock, lookup);
    cpuStacks.emit(tables.stacks, frames, scan.clock, lookup);

    const { producer, version } = traceProducer(parsed.container, input.displayName);
    const stackSamples = Array.isArray(parsed.container.samples)
      ? parsed.container.samples.length
      : 0;
    return {
      adapter: NAME,
      adapterVersion: VERSION,
      producer,
      producerVersion: version,
      tables,
      limitations: traceLimitations({
        scan: scan.counts,
        beginEnd,
        profiles: profileStats,
        slices,
        truncatedArgs,
        repairedTruncatedArray: parsed.repairedTruncatedArray,
        ignoredStackSamples: stackSamples,
      }),
      summary: {
        events: parsed.events.length,
        trace_event_rows: tables.trace_events.rowCount,
        slices,
        tracks: tracks.size,
        cpu_profiles: profileStats.profiles,
        cpu_samples: profileStats.attributedSamples,
        total_cpu_time_ns: profileStats.totalNs,
        metrics: [
          slices > 0 ? "wall_time" : "",
          profileStats.attributedSamples > 0 ? "cpu_time" : "",
        ]
          .filter(Boolean)
          .join(","),
      },
    };
  },
};

/** B/E pairing, then nesting and measurement, one track at a time. */
function measureSlices(
  scan: ScannedTrace,
  frameCount: number,
  wall: MeasureAccumulator,
  stacks: StackTrie,
): { slices: number; beginEnd: BeginEndCounts } {
  const beginEnd: BeginEndCounts = { unmatchedBegin: 0, unmatchedEnd: 0 };
  const nester = new SliceNester(frameCount, wall, stacks);
  let slices = 0;
  for (let t = 0; t < scan.slicesByTrack.length; t++) {
    const trackSlices = scan.slicesByTrack[t]!;
    if (trackSlices.length === 0) continue;
    const trackEnd = scan.trackEndNs[t]!;
    for (const i of trackSlices) {
      if ((scan.flags[i]! & FLAG_MISSING_DUR) !== 0)
        scan.durNs[i] = Math.max(0, trackEnd - scan.startNs[i]!);
    }
    matchBeginEnd(scan, trackSlices, trackEnd, beginEnd);
    slices += nestTrackSlices(scan, trackSlices, t, nester);
  }
  return { slices, beginEnd };
}
