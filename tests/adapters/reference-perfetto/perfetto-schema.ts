/**
 * The subset of Perfetto's trace protos (protos/perfetto/trace/…) flameox reads, for
 * protobufjs: the reference decoder of the tests and the benchmarks' baseline (flameox itself
 * reads traces with the WASM scanner). Field numbers as published by Perfetto.
 */
import protobuf from "protobufjs";

const PROTO = `
syntax = "proto2";
package perfetto;
message Trace { repeated TracePacket packet = 1; }
message TracePacket {
  optional uint64 timestamp = 8;
  optional uint32 timestamp_clock_id = 58;
  optional uint32 trusted_packet_sequence_id = 10;
  optional int32 trusted_pid = 79;
  optional TrackEvent track_event = 11;
  optional InternedData interned_data = 12;
  optional uint32 sequence_flags = 13;
  optional bool incremental_state_cleared = 41;
  optional TracePacketDefaults trace_packet_defaults = 59;
  optional TrackDescriptor track_descriptor = 60;
  optional ProcessDescriptor process_descriptor = 43;
  optional ThreadDescriptor thread_descriptor = 44;
  optional ClockSnapshot clock_snapshot = 6;
  optional StreamingProfilePacket streaming_profile_packet = 54;
  optional PerfSample perf_sample = 66;
  optional bool first_packet_on_sequence = 87;
  optional bool previous_packet_dropped = 42;
  optional FtraceEventBundle ftrace_events = 1;
  optional ProcessTree process_tree = 2;
  optional ProcessStats process_stats = 9;
  optional bytes compressed_packets = 50;
  optional ProfilePacket profile_packet = 37;
}
message ProfilePacket {
  repeated InternedString strings = 1; repeated Frame frames = 2; repeated Callstack callstacks = \
3; repeated Mapping mappings = 4;
  message HeapSample {
    optional uint64 callstack_id = 1; optional uint64 self_allocated = 2; optional uint64 \
self_freed = 3; optional uint64 timestamp = 4;
    optional uint64 alloc_count = 5; optional uint64 free_count = 6; optional uint64 self_idle = \
7; optional uint64 self_max = 8; optional uint64 self_max_count = 9;
  }
  message ProcessHeapSamples {
    optional uint64 pid = 1; repeated HeapSample samples = 2; optional bool from_startup = 3; \
optional bool rejected_concurrent = 4;
    optional bool disconnected = 6; optional uint64 timestamp = 9; optional string heap_name = 11; \
optional uint64 sampling_interval_bytes = 12;
  }
  repeated ProcessHeapSamples process_dumps = 5;
  optional bool continued = 6;
  optional uint64 index = 7;
}
message FtraceEventBundle { optional uint32 cpu = 1; repeated FtraceEvent event = 2; optional \
int32 ftrace_clock = 5; optional int64 ftrace_timestamp = 6; optional int64 boot_timestamp = 7; }
message FtraceEvent { optional uint64 timestamp = 1; optional uint32 pid = 2; optional \
PrintFtraceEvent print = 3; optional SchedSwitchFtraceEvent sched_switch = 4; }
message PrintFtraceEvent { optional uint64 ip = 1; optional string buf = 2; }
message SchedSwitchFtraceEvent { optional string prev_comm = 1; optional int32 prev_pid = 2; \
optional int32 prev_prio = 3; optional int64 prev_state = 4; optional string next_comm = 5; \
optional int32 next_pid = 6; optional int32 next_prio = 7; }
message ProcessStats {
  message Process {
    optional int32 pid = 1; optional uint64 vm_size_kb = 2; optional uint64 vm_rss_kb = 3; \
optional uint64 rss_anon_kb = 4; optional uint64 rss_file_kb = 5;
    optional uint64 rss_shmem_kb = 6; optional uint64 vm_swap_kb = 7; optional uint64 vm_locked_kb \
= 8; optional uint64 vm_hwm_kb = 9; optional int64 oom_score_adj = 10;
  }
  repeated Process processes = 1; optional uint64 collection_end_timestamp = 2;
}
message ProcessTree {
  message Thread { optional int32 tid = 1; optional int32 tgid = 3; optional string name = 2; }
  message Process { optional int32 pid = 1; optional int32 ppid = 2; repeated string cmdline = 3; \
optional int32 uid = 5; }
  repeated Process processes = 1; repeated Thread threads = 2; optional uint64 \
collection_end_timestamp = 3;
}
message TracePacketDefaults { optional uint32 timestamp_clock_id = 58; optional TrackEventDefaults \
track_event_defaults = 11; }
message TrackEventDefaults { optional uint64 track_uuid = 11; repeated uint64 \
extra_counter_track_uuids = 31; }
message TrackEvent {
  repeated uint64 category_iids = 3;
  repeated string categories = 22;
  optional uint64 name_iid = 10;
  optional string name = 23;
  optional int32 type = 9;
  optional uint64 track_uuid = 11;
  optional int64 counter_value = 30;
  optional double double_counter_value = 44;
  repeated uint64 extra_counter_track_uuids = 31;
  repeated int64 extra_counter_values = 12;
  repeated DebugAnnotation debug_annotations = 4;
  optional int64 timestamp_delta_us = 1;
  optional int64 timestamp_absolute_us = 16;
  optional LegacyEvent legacy_event = 6;
  repeated uint64 flow_ids_old = 36;
  repeated fixed64 flow_ids = 47;
  repeated fixed64 terminating_flow_ids = 48;
}
message LegacyEvent {
  optional uint64 name_iid = 1; optional int32 phase = 2; optional int64 duration_us = 3; optional \
int64 thread_duration_us = 4;
  optional uint64 unscoped_id = 6; optional uint64 local_id = 10; optional uint64 global_id = 11; \
optional int32 pid_override = 18; optional int32 tid_override = 19;
  optional uint64 bind_id = 8; optional int32 flow_direction = 13;
}
message DebugAnnotation {
  optional uint64 name_iid = 1; optional string name = 10;
  optional bool bool_value = 2; optional uint64 uint_value = 3; optional int64 int_value = 4; \
optional double double_value = 5;
  optional string string_value = 6; optional uint64 string_value_iid = 17; optional uint64 \
pointer_value = 7;
  optional string legacy_json_value = 9; repeated DebugAnnotation dict_entries = 11; repeated \
DebugAnnotation array_values = 12;
}
message InternedData {
  repeated EventCategory event_categories = 1;
  repeated EventName event_names = 2;
  repeated DebugAnnotationName debug_annotation_names = 3;
  repeated InternedString function_names = 5;
  repeated Frame frames = 6;
  repeated Callstack callstacks = 7;
  repeated InternedString build_ids = 16;
  repeated InternedString mapping_paths = 17;
  repeated InternedString source_paths = 18;
  repeated Mapping mappings = 19;
  repeated InternedString debug_annotation_string_values = 29;
}
message EventCategory { optional uint64 iid = 1; optional string name = 2; }
message EventName { optional uint64 iid = 1; optional string name = 2; }
message DebugAnnotationName { optional uint64 iid = 1; optional string name = 2; }
message InternedString { optional uint64 iid = 1; optional bytes str = 2; }
message Frame { optional uint64 iid = 1; optional uint64 function_name_id = 2; optional uint64 \
mapping_id = 3; optional uint64 rel_pc = 4; }
message Callstack { optional uint64 iid = 1; repeated uint64 frame_ids = 2; }
message Mapping { optional uint64 iid = 1; optional uint64 build_id = 2; optional uint64 \
start_offset = 3; optional uint64 start = 4; optional uint64 end = 5; optional uint64 load_bias = \
6; repeated uint64 path_string_ids = 7; }
message TrackDescriptor {
  optional uint64 uuid = 1; optional uint64 parent_uuid = 5; optional string name = 2; optional \
string static_name = 10;
  optional ProcessDescriptor process = 3; optional ThreadDescriptor thread = 4; optional \
CounterDescriptor counter = 8;
}
message CounterDescriptor { optional int32 type = 1; repeated string categories = 2; optional \
int32 unit = 3; optional string unit_name = 6; optional int64 unit_multiplier = 4; optional bool \
is_incremental = 5; }
message ProcessDescriptor { optional int32 pid = 1; repeated string cmdline = 2; optional string \
process_name = 6; }
message ThreadDescriptor { optional int32 pid = 1; optional int32 tid = 2; optional string \
thread_name = 5; optional int64 reference_timestamp_us = 6; }
message ClockSnapshot { repeated Clock clocks = 1; optional int32 primary_trace_clock = 2; }
message Clock { optional uint32 clock_id = 1; optional uint64 timestamp = 2; optional bool \
is_incremental = 3; optional uint64 unit_multiplier_ns = 4; }
message StreamingProfilePacket { repeated uint64 callstack_iid = 1; repeated int64 \
timestamp_delta_us = 2; optional int32 process_priority = 3; }
message PerfSample { optional uint32 cpu = 1; optional uint32 pid = 2; optional uint32 tid = 3; \
optional uint64 callstack_iid = 4; optional int32 cpu_mode = 5; }
`;

export const perfettoRoot = protobuf.parse(PROTO, { keepCase: true }).root;
export const Trace = perfettoRoot.lookupType("perfetto.Trace");
