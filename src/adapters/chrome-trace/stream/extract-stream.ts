/**
 * Streaming extraction of Chrome traces over the WASM JSON scanner: same tables, rows,
 * limitations and errors as the `chrome-trace` adapter's `extract` (which stays the
 * reference the tests compare against). Events are spooled while the JSON is scanned
 * (in bounded memory, spilling sorted runs), then merged per track, paired, nested and
 * written through the sink as `trace_events` batches; rows come per track in time order.
 */
import type { StreamedEvidence, StreamExtractInput } from "../../adapter.ts";
import { emptyTables } from "../../../domain/normalized-evidence.ts";
import { FrameRegistry } from "../../common/frame-registry.ts";
import { MeasureAccumulator } from "../../common/measure-accumulator.ts";
import { writeStackChunks } from "../../common/stack-chunks.ts";
import { StackTrie } from "../../common/stack-trie.ts";
import { NsClock } from "../../common/time-ns.ts";
import { expectationFailed, tooLarge } from "../../json-guard.ts";
import { TAG_ARRAY, TAG_JSON, TAG_OBJECT, sampleOfKind, type JsonBatch } from "../../wasm/json-batch.ts";
import { JsonScanner } from "../../wasm/json-scanner.ts";
import { skipByteOrderMark } from "../../wasm/byte-order-mark.ts";
import { EmbeddedProfiles } from "../embedded-profiles.ts";
import { TRACE_FORMAT, traceProducer } from "../parse-trace.ts";
import type { BeginEndCounts } from "../../trace-events/begin-end-matcher.ts";
import { SliceFrames } from "../../trace-events/slice-frames.ts";
import { SliceNester } from "../../trace-events/slice-nester.ts";
import { traceLimitations } from "../trace-limitations.ts";
import { TrackRegistry } from "../tracks.ts";
import { EventSpool } from "../../trace-events/event-spool.ts";
import { spooledRows } from "../../trace-events/spooled-rows.ts";
import { TrackSlicing } from "../../trace-events/track-slicing.ts";
import { StreamScan } from "./stream-scan.ts";
import { TraceRowWriter } from "../../trace-events/trace-row-writer.ts";
import { C_METADATA, C_PRESENCE_KEYS, C_SAMPLES, C_TRACE_EVENTS, cPresence, REC_CONTAINER, REC_EVENT, traceProgram } from "./trace-program.ts";

export async function extractChromeTraceStream(input: StreamExtractInput, adapter: { name: string; version: string }): Promise<StreamedEvidence> {
  const spool = new EventSpool({ spill: input.spill, runEvents: input.spoolRunEvents, pendingEvents: input.pendingEventsInMemory });
  try {
    return await extractSpooled(input, adapter, spool);
  } finally {
    spool.dispose();
  }
}

async function extractSpooled(input: StreamExtractInput, adapter: { name: string; version: string }, spool: EventSpool): Promise<StreamedEvidence> {
  const { limits } = input;
  let scanner: JsonScanner | null = await JsonScanner.open(traceProgram(), { format: TRACE_FORMAT, maxDepth: limits.maxNestingDepth, truncateJsonAt: limits.maxArgsBytes });
  const strings = scanner.strings;
  const frames = new FrameRegistry();
  const tracks = new TrackRegistry();
  const profiles = new EmbeddedProfiles();
  const scan = new StreamScan(spool, strings, tracks, new SliceFrames(frames), profiles, limits.maxArgsBytes);
  let container: Record<string, unknown> = {};
  let topKind = 0;
  let traceEventsKind = 0;
  let stackSamples = 0;
  const onBatch = (b: JsonBatch): void => {
    for (let r = 0; r < b.count; r++) {
      if (b.type(r) === REC_EVENT) {
        scan.event(b, r);
        if (spool.length > limits.maxEvents) throw tooLarge(TRACE_FORMAT, "events", spool.length, limits.maxEvents);
        continue;
      }
      if (b.type(r) !== REC_CONTAINER) continue;
      topKind = b.selfKind(r);
      if (topKind !== TAG_OBJECT) continue;
      traceEventsKind = b.kind(r, C_TRACE_EVENTS);
      if (b.kind(r, C_SAMPLES) === TAG_ARRAY) stackSamples = b.int(r, C_SAMPLES);
      container = b.kind(r, C_METADATA) === TAG_JSON ? { metadata: b.value(r, C_METADATA) } : {};
      for (const key of C_PRESENCE_KEYS) if (b.kind(r, cPresence(key)) !== 0) container[key] = true;
    }
  };
  for await (const chunk of skipByteOrderMark(input.chunks)) scanner.push(chunk, onBatch);
  const { repaired } = scanner.finish(true, onBatch);
  scanner = null; // its linear memory can go before the merge pass; its strings stay

  // The checks and messages of parse-trace.ts (the scanner has validated the JSON itself).
  if (topKind !== TAG_ARRAY && topKind !== TAG_OBJECT) throw expectationFailed(TRACE_FORMAT, "the top-level value", "an array or an object", sampleOfKind(topKind));
  if (topKind === TAG_OBJECT && traceEventsKind !== TAG_ARRAY) throw expectationFailed(TRACE_FORMAT, "traceEvents", "an array", sampleOfKind(traceEventsKind));
  if (profiles.sampleCount > limits.maxEvents) throw tooLarge(TRACE_FORMAT, "CPU profile samples", profiles.sampleCount, limits.maxEvents);

  const clock = scan.clock ?? new NsClock(0);
  const wall = new MeasureAccumulator("wall_time");
  const wallStacks = new StackTrie("wall_time", input.spill ? { space: input.spill, maxStacks: input.maxStacksInMemory } : undefined);
  const beginEnd: BeginEndCounts = { unmatchedBegin: 0, unmatchedEnd: 0 };
  const nester = new SliceNester(frames.size, wall, wallStacks);
  const rowWriter = new TraceRowWriter(strings, tracks, clock);
  const nameOf = (id: number): unknown => (id >= 0 ? strings.get(id) : undefined);
  const slicing = new TrackSlicing(nester, beginEnd, nameOf, rowWriter, { spill: spool.spill, events: spool.pendingEvents });
  for (const batch of spooledRows(spool, scan.trackEndNs, slicing, rowWriter)) await input.sink.writeBatch(batch);
  const slices = nester.slices;
  const rows = rowWriter.rows;
  const truncatedArgs = rowWriter.truncatedArgs;

  const cpu = new MeasureAccumulator("cpu_time");
  const cpuStacks = new StackTrie("cpu_time");
  const unsymbolizedBefore = frames.countUnsymbolized();
  const profileStats = profiles.normalize({ frames, cpu, stacks: cpuStacks, clock });

  const tables = emptyTables();
  const trackInfo = tracks.allInfo();
  const lookup = (track: number) => trackInfo[track]!;
  // Stacks first: the other tables are built whole, and need not be alive while stacks stream.
  await writeStackChunks(input.sink, [wallStacks, cpuStacks], frames, clock, lookup);
  frames.emit(tables.frames);
  wall.emit(tables.frame_measurements, tables.call_edges, frames, lookup);
  cpu.emit(tables.frame_measurements, tables.call_edges, frames, lookup);

  const { producer, version } = traceProducer(container, input.displayName);
  return {
    adapter: adapter.name,
    adapterVersion: adapter.version,
    producer,
    producerVersion: version,
    tables: { frames: tables.frames, frame_measurements: tables.frame_measurements, call_edges: tables.call_edges },
    streamed: ["trace_events", "stacks"],
    limitations: traceLimitations({
      scan: scan.counts, beginEnd, profiles: profileStats, slices, truncatedArgs,
      repairedTruncatedArray: repaired,
      unsymbolizedFrames: frames.countUnsymbolized() - unsymbolizedBefore,
      ignoredStackSamples: stackSamples,
    }),
    summary: {
      events: spool.length,
      trace_event_rows: rows,
      slices,
      tracks: tracks.size,
      cpu_profiles: profileStats.profiles,
      cpu_samples: profileStats.attributedSamples,
      total_cpu_time_ns: profileStats.totalNs,
      metrics: [slices > 0 ? "wall_time" : "", profileStats.attributedSamples > 0 ? "cpu_time" : ""].filter(Boolean).join(","),
    },
  };
}
