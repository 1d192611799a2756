/**
 * Android simpleperf's `report_sample.py --protobuf` records (cmd_report_sample.proto in
 * AOSP system/extras/simpleperf), for protobufjs. The file is the magic `SIMPLEPERF`, a
 * little-endian uint16 format version, then Records, each after its little-endian uint32
 * length, ended by a zero length (record-framer.ts cuts them apart).
 */
import type * as Protobuf from "protobufjs";

const PROTO = `
syntax = "proto2";
package simpleperf_report_proto;
message Sample {
  optional uint64 time = 1;
  optional int32 thread_id = 2;
  message CallChainEntry {
    optional uint64 vaddr_in_file = 1;
    optional uint32 file_id = 2;
    optional int32 symbol_id = 3;
    enum ExecutionType { NATIVE_METHOD = 0; INTERPRETED_JVM_METHOD = 1; JIT_JVM_METHOD = 2; \
ART_METHOD = 3; }
    optional ExecutionType execution_type = 4 [default = NATIVE_METHOD];
  }
  repeated CallChainEntry callchain = 3;
  optional uint64 event_count = 4;
  optional uint32 event_type_id = 5;
  message UnwindingResult { optional uint32 raw_error_code = 1; optional uint64 error_addr = 2; \
optional uint32 error_code = 3; }
  optional UnwindingResult unwinding_result = 6;
}
message LostSituation { optional uint64 sample_count = 1; optional uint64 lost_count = 2; }
message File { optional uint32 id = 1; optional string path = 2; repeated string symbol = 3; \
repeated string mangled_symbol = 4; }
message Thread { optional uint32 thread_id = 1; optional uint32 process_id = 2; optional string \
thread_name = 3; }
message MetaInfo {
  repeated string event_type = 1; optional string app_package_name = 2; optional string app_type = \
3;
  optional string android_sdk_version = 4; optional string android_build_type = 5; optional bool \
trace_offcpu = 6;
}
message ContextSwitch { optional bool switch_on = 1; optional uint64 time = 2; optional uint32 \
thread_id = 3; }
message Record {
  oneof record_data {
    Sample sample = 1; LostSituation lost = 2; File file = 3; Thread thread = 4; MetaInfo \
meta_info = 5; ContextSwitch context_switch = 6;
  }
}
`;

let record: Protobuf.Type | undefined;

/**
 * The Record type, built at the first simpleperf file: protobufjs and the parsed schema
 * cost every parse worker ~0.1 s to load, and no other import needs them (the other
 * protobuf formats go through the WASM wire scanner).
 */
export function simpleperfRecord(): Protobuf.Type {
  const protobuf = require("protobufjs") as typeof Protobuf;
  return (record ??= protobuf
    .parse(PROTO, { keepCase: true })
    .root.lookupType("simpleperf_report_proto.Record"));
}

export const SIMPLEPERF_FORMAT = "simpleperf report_sample protobuf";

/** A uint64 as protobufjs gives it: a Long when the `long` package is present, else a number. */
export type Uint64 = number | { low: number; high: number; unsigned?: boolean };

/** Execution types whose frames are Java methods (interpreted or JIT-compiled by ART). */
export const JVM_EXECUTION_TYPES: ReadonlySet<number> = new Set([1, 2]);

export interface CallChainEntry {
  file_id?: number;
  symbol_id?: number;
  execution_type?: number;
}
export interface SampleRecord {
  time?: Uint64;
  thread_id?: number;
  callchain: CallChainEntry[];
  event_count?: Uint64;
  event_type_id?: number;
  unwinding_result?: { error_code?: number } | null;
}
export interface FileRecord {
  id?: number;
  path?: string;
  symbol: string[];
  mangled_symbol: string[];
}
export interface ThreadRecord {
  thread_id?: number;
  process_id?: number;
  thread_name?: string;
}
export interface MetaInfoRecord {
  event_type: string[];
  app_package_name?: string;
  app_type?: string;
  android_sdk_version?: string;
  android_build_type?: string;
  trace_offcpu?: boolean;
}
export interface DecodedRecord {
  record_data?: "sample" | "lost" | "file" | "thread" | "meta_info" | "context_switch";
  sample?: SampleRecord;
  lost?: { sample_count?: Uint64; lost_count?: Uint64 };
  file?: FileRecord;
  thread?: ThreadRecord;
  meta_info?: MetaInfoRecord;
  context_switch?: { switch_on?: boolean; time?: Uint64; thread_id?: number };
}

/** A uint64 as a bigint (exact whatever its size). */
export function uint64(value: Uint64 | undefined): bigint {
  if (value === undefined) return 0n;
  if (typeof value === "number") return BigInt(value);
  return (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
}
