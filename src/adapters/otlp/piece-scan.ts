/**
 * One piece of a large OTLP protobuf request (whole `resource_spans` fields, see
 * piece-plan.ts), scanned on its own on a thread: the same scanner and span reader as the
 * sequential scan, with span and ResourceSpans ordinals counted from the piece's start.
 * piece-merge.ts moves them to the whole request's and hands the rows on in piece order,
 * so they are exactly the rows of one sequential scan.
 */
import { columnBatchArrays, type ColumnBatch } from "../../domain/column-batch.ts";
import { type ErrorCode, FlameoxError } from "../../domain/errors.ts";
import type { PieceTask } from "../adapter.ts";
import { tableBufferToBatch } from "../common/table-buffer-batch.ts";
import { ProtoScanner } from "../wasm/proto-scanner.ts";
import { otlpProgram } from "./otlp-proto-program.ts";
import { OtlpRows } from "./otlp-rows.ts";
import { OTLP_PROTO_FORMAT } from "./proto-values.ts";
import { otlpProtoReader } from "./scan-proto.ts";

export interface OtlpPieceInput {
  bytes: Uint8Array;
  /** The piece's offset in the request, for error offsets. */
  offset: number;
  limits: PieceTask["limits"];
}

export interface ScannedOtlpPiece {
  ok: true;
  spans: number;
  events: number;
  links: number;
  negativeDurations: number;
  /**
   * otel_spans, otel_span_events and otel_span_links rows, span_index and resource_index counted
   * from the piece's start.
   */
  batches: ColumnBatch[];
  resources: ColumnBatch;
  scopes: ColumnBatch;
  /** The piece's first distinct trace ids, in order (the summary counts up to 100,000). */
  traceIds: string[];
}

export interface FailedOtlpPiece {
  ok: false;
  /** Spans read before the error. */
  spans: number;
  error: {
    code: ErrorCode;
    message: string;
    remediation: string[];
    details?: Record<string, unknown>;
  };
}

export type OtlpPieceResult = ScannedOtlpPiece | FailedOtlpPiece;

/** Limits are checked where the pieces meet, over the whole request. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

const noSink = { writeBatch: () => Promise.reject(new Error("a piece keeps its rows")) };

/**
 * The thread's scanner, readied for the next piece after each one it ended cleanly (a
 * piece's rows carry bytes, not string ids, so the ids it keeps do not matter): one linear
 * memory per thread instead of one per piece. Dropped after an error.
 */
let ready: { scanner: ProtoScanner; maxDepth: number } | null = null;

export function scanOtlpPiece(input: OtlpPieceInput): OtlpPieceResult {
  const rows = new OtlpRows(noSink, UNLIMITED);
  try {
    const maxDepth = input.limits.maxNestingDepth;
    const scanner =
      ready?.maxDepth === maxDepth
        ? ready.scanner
        : ProtoScanner.openSync(otlpProgram(), { format: OTLP_PROTO_FORMAT, maxDepth });
    ready = null;
    scanner.documentOffset = (at) => input.offset + at;
    const { out, onBatch } = otlpProtoReader(rows, UNLIMITED);
    scanner.scanWhole(input.bytes, onBatch);
    ready = { scanner, maxDepth };
    return {
      ok: true,
      spans: rows.spanCount,
      events: rows.eventCount,
      links: rows.linkCount,
      negativeDurations: rows.negativeDurations,
      batches: out.takeAll(),
      resources: tableBufferToBatch(rows.resources),
      scopes: tableBufferToBatch(rows.scopes),
      traceIds: [...rows.traceIds],
    };
  } catch (error) {
    if (!(error instanceof FlameoxError)) throw error;
    return {
      ok: false,
      spans: rows.spanCount,
      error: {
        code: error.code,
        message: error.message,
        remediation: error.remediation,
        details: error.details,
      },
    };
  }
}

/** The buffers of a result, to transfer rather than copy it off the thread. */
export function otlpPieceBuffers(result: OtlpPieceResult): ArrayBuffer[] {
  if (!result.ok) return [];
  const arrays = [...result.batches, result.resources, result.scopes].flatMap(columnBatchArrays);
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}
