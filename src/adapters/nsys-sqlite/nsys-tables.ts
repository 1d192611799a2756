/**
 * The Nsight Systems export tables this reader turns into trace events, and how each is
 * read: its time columns, where its track comes from (a GPU stream, or a host thread
 * from `globalTid`) and how its name is found (a StringIds id, text, or a fixed word).
 * `nsys export --type sqlite` writes only the tables of what was traced, so each is optional.
 */
export type TrackSource = "stream" | "thread";

export interface EventTable {
  table: string;
  category: string;
  track: TrackSource;
  /** Columns read besides start/end and the track's; those the export lacks read as null. */
  columns: string[];
}

export const EVENT_TABLES: readonly EventTable[] = [
  {
    table: "CUPTI_ACTIVITY_KIND_KERNEL",
    category: "cuda_kernel",
    track: "stream",
    columns: [
      "shortName",
      "demangledName",
      "correlationId",
      "gridX",
      "gridY",
      "gridZ",
      "blockX",
      "blockY",
      "blockZ",
      "registersPerThread",
    ],
  },
  {
    table: "CUPTI_ACTIVITY_KIND_MEMCPY",
    category: "cuda_memcpy",
    track: "stream",
    columns: ["copyKind", "bytes", "correlationId"],
  },
  {
    table: "CUPTI_ACTIVITY_KIND_MEMSET",
    category: "cuda_memset",
    track: "stream",
    columns: ["value", "bytes", "correlationId"],
  },
  {
    table: "CUPTI_ACTIVITY_KIND_RUNTIME",
    category: "cuda_runtime",
    track: "thread",
    columns: ["nameId", "correlationId", "returnValue"],
  },
  {
    table: "CUPTI_ACTIVITY_KIND_DRIVER",
    category: "cuda_driver",
    track: "thread",
    columns: ["nameId", "correlationId", "returnValue"],
  },
  {
    table: "NVTX_EVENTS",
    category: "nvtx",
    track: "thread",
    columns: ["eventType", "text", "textId"],
  },
  { table: "OSRT_API", category: "osrt", track: "thread", columns: ["nameId", "returnValue"] },
];

/**
 * NVTX event types that are ranges or marks on a thread (others declare domains, categories,
 * names).
 */
export const NVTX_MARK = 34;
export const NVTX_RANGES = new Set([59, 60]);

/**
 * cudaMemcpyKind words as Nsight's ENUM_CUDA_MEMCPY_OPER names them, for exports without that
 * table.
 */
export const MEMCPY_KINDS: Record<number, string> = {
  0: "Unknown",
  1: "HtoD",
  2: "DtoH",
  3: "HtoA",
  4: "AtoH",
  5: "AtoA",
  6: "AtoD",
  7: "DtoA",
  8: "DtoD",
  9: "HtoH",
  10: "PtoP",
  11: "UVM HtoD",
  12: "UVM DtoH",
  13: "UVM DtoD",
};

/**
 * Nsight packs a host's process and thread ids into one 64-bit globalTid / globalPid: pid in bits
 * 24..47, tid in the low 24.
 */
export function hostIds(globalTid: number): { pid: number; tid: number } {
  return { pid: Math.floor(globalTid / 2 ** 24) % 2 ** 24, tid: globalTid % 2 ** 24 };
}
