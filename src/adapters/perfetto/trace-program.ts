/**
 * What the WASM protobuf scanner extracts from a Perfetto trace (a stream of TracePacket,
 * field 1 of Trace): one record per packet with the fields flameox reads, and records for
 * the repeated parts (interned data, clocks, categories, annotations, callstacks), which
 * arrive just before their packet. Field numbers from Perfetto's trace_packet.proto,
 * track_event.proto, interned_data.proto, track_descriptor.proto, clock_snapshot.proto,
 * profile_common.proto, profile_packet.proto, ftrace_event_bundle.proto, ftrace_event.proto
 * and process_tree.proto; compressed_packets (50) is handed over whole.
 */
import {
  P_BYTES,
  P_SCALAR,
  PACKED_FIXED64,
  PACKED_VARINT,
  ProtoProgram,
} from "../wasm/proto-program.ts";

export const R = {
  TRACE: 0,
  PACKET: 1,
  CAT_IID: 2,
  CAT_NAME: 3,
  ANNOTATION: 4,
  TRACK: 5,
  PROCESS: 6,
  THREAD: 7,
  CLOCK: 8,
  I_CATEGORY: 9,
  I_NAME: 10,
  I_ANNOTATION_NAME: 11,
  I_FUNCTION: 12,
  I_FRAME: 13,
  I_CALLSTACK: 14,
  I_FRAME_ID: 15,
  I_MAPPING: 16,
  I_MAPPING_PATH_ID: 17,
  I_MAPPING_PATH: 18,
  I_STRING_VALUE: 19,
  SP_CALLSTACK: 20,
  SP_DELTA: 21,
  COMPRESSED: 22,
  FTRACE: 23,
  PT_PROCESS: 24,
  PT_CMDLINE: 25,
  PT_THREAD: 26,
  PS_PROCESS: 27,
  EXTRA_VALUE: 28,
  EXTRA_UUID: 29,
  EXTRA_DOUBLE_VALUE: 30,
  EXTRA_DOUBLE_UUID: 31,
  DEFAULT_EXTRA_UUID: 32,
  DEFAULT_EXTRA_DOUBLE_UUID: 33,
  PROFILE_STRING: 34,
  HEAP_DUMP: 35,
  HEAP_SAMPLE: 36,
} as const;

/**
 * ProfilePacket.ProcessHeapSamples slots (profile_packet.proto: pid 1, timestamp 9, heap_name 11).
 */
export const HD = { PID: 0, TIMESTAMP: 1, HEAP_NAME: 2 } as const;
/**
 * ProfilePacket.HeapSample slots (callstack_id 1, self_allocated 2, self_freed 3, alloc_count 5,
 * free_count 6, self_max 8, self_max_count 9).
 */
export const HS = {
  CALLSTACK: 0,
  ALLOCATED: 1,
  FREED: 2,
  ALLOC_COUNT: 3,
  FREE_COUNT: 4,
  MAX: 5,
  MAX_COUNT: 6,
} as const;

/**
 * ProcessStats.Process (process_stats.proto): pid (1) in slot 0, then fields 2..10 in slots
 * 1..9, named as Trace Processor names the counters (memory in bytes, read in KiB).
 */
export const PROCESS_STAT_COUNTERS: readonly { name: string; kib: boolean }[] = [
  { name: "mem.virt", kib: true },
  { name: "mem.rss", kib: true },
  { name: "mem.rss.anon", kib: true },
  { name: "mem.rss.file", kib: true },
  { name: "mem.rss.shmem", kib: true },
  { name: "mem.swap", kib: true },
  { name: "mem.locked", kib: true },
  { name: "mem.rss.watermark", kib: true },
  { name: "oom_score_adj", kib: false },
];

/** FtraceEvent slots (ftrace_event.proto: timestamp 1, pid 2, print 3 → PrintFtraceEvent.buf 2). */
export const F = { TIMESTAMP: 0, TID: 1, PRINT_BUF: 2 } as const;

/** Packet slots. */
export const P = {
  TIMESTAMP: 0,
  CLOCK_ID: 1,
  SEQUENCE: 2,
  SEQUENCE_FLAGS: 3,
  STATE_CLEARED: 4,
  TYPE: 5,
  TRACK_UUID: 6,
  NAME_IID: 7,
  NAME: 8,
  COUNTER: 9,
  DOUBLE_COUNTER: 10,
  ABSOLUTE_US: 11,
  DELTA_US: 12,
  LEGACY_NAME_IID: 13,
  LEGACY_PHASE: 14,
  LEGACY_DURATION_US: 15,
  DEFAULT_CLOCK_ID: 16,
  DEFAULT_TRACK_UUID: 17,
  PRIMARY_CLOCK: 18,
  PERF_PID: 19,
  PERF_TID: 20,
  PERF_CALLSTACK: 21,
  TRACK_EVENT: 22,
  TRUSTED_PID: 23,
  FTRACE_CLOCK: 24,
  FTRACE_TIMESTAMP: 25,
  BOOT_TIMESTAMP: 26,
  PROFILE_PACKET: 27,
  PROFILE_CONTINUED: 28,
  LEGACY_ID: 29,
  FLOW: 30,
} as const;

/** Track descriptor slots. */
export const T = {
  UUID: 0,
  PARENT: 1,
  NAME: 2,
  STATIC_NAME: 3,
  PID: 4,
  PROCESS_NAME: 5,
  THREAD_PID: 6,
  TID: 7,
  THREAD_NAME: 8,
  COUNTER: 9,
  COUNTER_MULTIPLIER: 10,
  COUNTER_INCREMENTAL: 11,
  COUNTER_TYPE: 12,
  PROCESS_CMDLINE: 13,
} as const;

export function perfettoProgram(): ProtoProgram {
  const p = new ProtoProgram(31);
  p.record(0, R.TRACE).whole(R.TRACE);
  const packet = p.child(0, 1, p.message({ record: R.PACKET }));
  p.whole(R.PACKET);
  const v = (parent: number, field: number, record: number, slot: number, mode = P_SCALAR) =>
    p.value(parent, field, record, slot, mode);
  const own = (parent: number, field: number, record: number, mode = P_SCALAR, packed = 0) =>
    p.value(parent, field, record, 0, mode, packed, record);
  v(packet, 8, R.PACKET, P.TIMESTAMP);
  v(packet, 58, R.PACKET, P.CLOCK_ID);
  v(packet, 10, R.PACKET, P.SEQUENCE);
  v(packet, 13, R.PACKET, P.SEQUENCE_FLAGS);
  v(packet, 41, R.PACKET, P.STATE_CLEARED);
  v(packet, 79, R.PACKET, P.TRUSTED_PID);

  const event = p.child(packet, 11, p.message());
  p.presence(event, R.PACKET, P.TRACK_EVENT);
  [
    [9, P.TYPE],
    [11, P.TRACK_UUID],
    [10, P.NAME_IID],
    [23, P.NAME],
    [30, P.COUNTER],
    [44, P.DOUBLE_COUNTER],
    [16, P.ABSOLUTE_US],
    [1, P.DELTA_US],
  ].forEach(([field, slot]) => v(event, field!, R.PACKET, slot!));
  own(event, 3, R.CAT_IID, P_SCALAR, PACKED_VARINT);
  // Extra counter values (12, 46) for the counter tracks named by 31 and 45, or by the defaults.
  own(event, 12, R.EXTRA_VALUE, P_SCALAR, PACKED_VARINT);
  own(event, 31, R.EXTRA_UUID, P_SCALAR, PACKED_VARINT);
  own(event, 46, R.EXTRA_DOUBLE_VALUE, P_SCALAR, PACKED_FIXED64);
  own(event, 45, R.EXTRA_DOUBLE_UUID, P_SCALAR, PACKED_VARINT);
  own(event, 22, R.CAT_NAME);
  own(event, 4, R.ANNOTATION, P_BYTES);
  const legacy = p.child(event, 6, p.message());
  v(legacy, 1, R.PACKET, P.LEGACY_NAME_IID);
  v(legacy, 2, R.PACKET, P.LEGACY_PHASE);
  v(legacy, 3, R.PACKET, P.LEGACY_DURATION_US);
  // The event id (unscoped_id, local_id or global_id: one per event) joins Chrome's V8 Profile and
  // ProfileChunk events.
  [6, 10, 11].forEach((field) => v(legacy, field, R.PACKET, P.LEGACY_ID));
  // Flow links (flow_ids_old, flow_ids, terminating_flow_ids; legacy bind_id, flow_direction):
  // counted, not linked.
  [36, 47, 48].forEach((field) => v(event, field, R.PACKET, P.FLOW));
  [8, 13].forEach((field) => v(legacy, field, R.PACKET, P.FLOW));

  const defaults = p.child(packet, 59, p.message());
  v(defaults, 58, R.PACKET, P.DEFAULT_CLOCK_ID);
  const eventDefaults = p.child(defaults, 11, p.message());
  v(eventDefaults, 11, R.PACKET, P.DEFAULT_TRACK_UUID);
  own(eventDefaults, 31, R.DEFAULT_EXTRA_UUID, P_SCALAR, PACKED_VARINT);
  own(eventDefaults, 45, R.DEFAULT_EXTRA_DOUBLE_UUID, P_SCALAR, PACKED_VARINT);

  const track = p.child(packet, 60, p.message({ record: R.TRACK }));
  [
    [1, T.UUID],
    [5, T.PARENT],
    [2, T.NAME],
    [10, T.STATIC_NAME],
  ].forEach(([field, slot]) => v(track, field!, R.TRACK, slot!));
  const process = p.child(track, 3, p.message());
  v(process, 1, R.TRACK, T.PID);
  v(process, 6, R.TRACK, T.PROCESS_NAME);
  // cmdline (repeated; its last entry kept): a process_name that is the command line is
  // Perfetto's default, not a name the producer gave (see PerfettoTracks.describe).
  v(process, 2, R.TRACK, T.PROCESS_CMDLINE);
  const thread = p.child(track, 4, p.message());
  [
    [1, T.THREAD_PID],
    [2, T.TID],
    [5, T.THREAD_NAME],
  ].forEach(([field, slot]) => v(thread, field!, R.TRACK, slot!));
  const counter = p.child(track, 8, p.message());
  p.presence(counter, R.TRACK, T.COUNTER);
  v(counter, 1, R.TRACK, T.COUNTER_TYPE);
  v(counter, 4, R.TRACK, T.COUNTER_MULTIPLIER);
  v(counter, 5, R.TRACK, T.COUNTER_INCREMENTAL);

  const processDescriptor = p.child(packet, 43, p.message({ record: R.PROCESS }));
  v(processDescriptor, 1, R.PROCESS, 0);
  v(processDescriptor, 6, R.PROCESS, 1);
  const threadDescriptor = p.child(packet, 44, p.message({ record: R.THREAD }));
  [
    [1, 0],
    [2, 1],
    [5, 2],
  ].forEach(([field, slot]) => v(threadDescriptor, field!, R.THREAD, slot!));

  const snapshot = p.child(packet, 6, p.message());
  v(snapshot, 2, R.PACKET, P.PRIMARY_CLOCK);
  const clock = p.child(snapshot, 1, p.message({ record: R.CLOCK }));
  [1, 2, 3, 4].forEach((field, slot) => v(clock, field, R.CLOCK, slot));

  const interned = p.child(packet, 12, p.message());
  // An InternedString-like {iid 1, value 2} message under `parent`.
  const pair = (field: number, record: number, parent = interned) => {
    const m = p.child(parent, field, p.message({ record }));
    v(m, 1, record, 0);
    v(m, 2, record, 1);
  };
  // Frame, Callstack and Mapping messages (profile_common.proto) under `parent`, at its field
  // numbers for them.
  const frameTables = (
    parent: number,
    fields: { frame: number; callstack: number; mapping: number },
  ) => {
    const frame = p.child(parent, fields.frame, p.message({ record: R.I_FRAME }));
    [1, 2, 3, 4].forEach((field, slot) => v(frame, field, R.I_FRAME, slot));
    const callstack = p.child(parent, fields.callstack, p.message({ record: R.I_CALLSTACK }));
    v(callstack, 1, R.I_CALLSTACK, 0);
    own(callstack, 2, R.I_FRAME_ID, P_SCALAR, PACKED_VARINT);
    const mapping = p.child(parent, fields.mapping, p.message({ record: R.I_MAPPING }));
    v(mapping, 1, R.I_MAPPING, 0);
    own(mapping, 7, R.I_MAPPING_PATH_ID, P_SCALAR, PACKED_VARINT);
  };
  pair(1, R.I_CATEGORY);
  pair(2, R.I_NAME);
  pair(3, R.I_ANNOTATION_NAME);
  pair(5, R.I_FUNCTION);
  pair(17, R.I_MAPPING_PATH);
  pair(29, R.I_STRING_VALUE);
  frameTables(interned, { frame: 6, callstack: 7, mapping: 19 });

  // compressed_packets: a deflated run of packets, expanded by the host (compressed-packets.ts).
  own(packet, 50, R.COMPRESSED, P_BYTES);
  // ftrace_events → FtraceEventBundle.event (2): one record per kernel event; only `print`
  // (atrace marks) is read, the rest (sched, irq, …) is skipped by length.
  const bundle = p.child(packet, 1, p.message());
  // The bundle's clock (5) and its {ftrace, boot} timestamp pair (6, 7) go on the packet
  // record: they may follow the events, so the host converts the events' times once the
  // whole packet is read (ftrace-marks.ts).
  [
    [5, P.FTRACE_CLOCK],
    [6, P.FTRACE_TIMESTAMP],
    [7, P.BOOT_TIMESTAMP],
  ].forEach(([field, slot]) => v(bundle, field!, R.PACKET, slot!));
  const ftraceEvent = p.child(bundle, 2, p.message({ record: R.FTRACE }));
  v(ftraceEvent, 1, R.FTRACE, F.TIMESTAMP);
  v(ftraceEvent, 2, R.FTRACE, F.TID);
  v(p.child(ftraceEvent, 3, p.message()), 2, R.FTRACE, F.PRINT_BUF, P_BYTES);
  // process_tree: pid → cmdline (its first entry names the process), tid → tgid and name.
  const tree = p.child(packet, 2, p.message());
  const treeProcess = p.child(tree, 1, p.message({ record: R.PT_PROCESS }));
  v(treeProcess, 1, R.PT_PROCESS, 0);
  own(treeProcess, 3, R.PT_CMDLINE);
  const treeThread = p.child(tree, 2, p.message({ record: R.PT_THREAD }));
  [
    [1, 0],
    [3, 1],
    [2, 2],
  ].forEach(([field, slot]) => v(treeThread, field!, R.PT_THREAD, slot!));

  // process_stats (9): per-process memory counters sampled by traced_probes (linux.process_stats).
  const statsProcess = p.child(
    p.child(packet, 9, p.message()),
    1,
    p.message({ record: R.PS_PROCESS }),
  );
  for (let field = 1; field <= 10; field++) v(statsProcess, field, R.PS_PROCESS, field - 1);

  // profile_packet (37): heapprofd's native heap dumps. Android Q wrote the strings, frames,
  // callstacks and mappings into the packet itself (later versions intern them in
  // InternedData): they become the same records as the interned ones.
  const heapProfile = p.child(packet, 37, p.message());
  p.presence(heapProfile, R.PACKET, P.PROFILE_PACKET);
  v(heapProfile, 6, R.PACKET, P.PROFILE_CONTINUED);
  pair(1, R.PROFILE_STRING, heapProfile);
  frameTables(heapProfile, { frame: 2, callstack: 3, mapping: 4 });
  const heapDump = p.child(heapProfile, 5, p.message({ record: R.HEAP_DUMP }));
  [
    [1, HD.PID],
    [9, HD.TIMESTAMP],
    [11, HD.HEAP_NAME],
  ].forEach(([field, slot]) => v(heapDump, field!, R.HEAP_DUMP, slot!));
  const heapSample = p.child(heapDump, 2, p.message({ record: R.HEAP_SAMPLE }));
  [
    [1, HS.CALLSTACK],
    [2, HS.ALLOCATED],
    [3, HS.FREED],
    [5, HS.ALLOC_COUNT],
    [6, HS.FREE_COUNT],
    [8, HS.MAX],
    [9, HS.MAX_COUNT],
  ].forEach(([field, slot]) => v(heapSample, field!, R.HEAP_SAMPLE, slot!));

  const profile = p.child(packet, 54, p.message());
  own(profile, 1, R.SP_CALLSTACK, P_SCALAR, PACKED_VARINT);
  own(profile, 2, R.SP_DELTA, P_SCALAR, PACKED_VARINT);
  const perf = p.child(packet, 66, p.message());
  [
    [2, P.PERF_PID],
    [3, P.PERF_TID],
    [4, P.PERF_CALLSTACK],
  ].forEach(([field, slot]) => v(perf, field!, R.PACKET, slot!));
  return p;
}
