/**
 * Takes the pieces of an OTLP request (piece-scan.ts) in order: span and ResourceSpans
 * ordinals move from the piece's start to the request's, the span, event and link rows go
 * to the sink as they are, resources and scopes join the request's, and the counts add
 * up. The span limit is checked as a sequential scan would, before a failed piece's error.
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import { FlameoxError } from "../../domain/errors.ts";
import type { EvidenceSink } from "../adapter.ts";
import { appendBatch } from "../common/batch-table-buffer.ts";
import { tooLarge } from "../json-guard.ts";
import type { OtlpRows } from "./otlp-rows.ts";
import type { OtlpPieceResult } from "./piece-scan.ts";

/** Distinct trace ids the summary counts at most (as SpanStream keeps them). */
const MAX_TRACE_IDS = 100_000;

export async function takeOtlpPiece(
  rows: OtlpRows,
  sink: EvidenceSink,
  maxSpans: number,
  piece: OtlpPieceResult,
  resourcesBefore: number,
): Promise<void> {
  if (rows.spanCount + piece.spans > maxSpans)
    throw tooLarge("OTLP trace", "spans", maxSpans + 1, maxSpans);
  if (!piece.ok)
    throw new FlameoxError(piece.error.code, piece.error.message, {
      remediation: piece.error.remediation,
      details: piece.error.details,
    });
  const spansBefore = rows.spanCount;
  for (const batch of piece.batches) {
    shift(batch, "span_index", spansBefore);
    shift(batch, "resource_index", resourcesBefore);
    await sink.writeBatch(batch);
  }
  shift(piece.resources, "resource_index", resourcesBefore);
  shift(piece.scopes, "resource_index", resourcesBefore);
  appendBatch(rows.resources, piece.resources);
  appendBatch(rows.scopes, piece.scopes);
  rows.spanCount += piece.spans;
  rows.eventCount += piece.events;
  rows.linkCount += piece.links;
  rows.negativeDurations += piece.negativeDurations;
  for (const id of piece.traceIds) {
    if (rows.traceIds.size >= MAX_TRACE_IDS) break;
    rows.traceIds.add(id);
  }
}

/** Adds `by` to an ordinal column of the batch, when it has one. */
function shift(batch: ColumnBatch, column: string, by: number): void {
  const vector = batch.columns[column];
  if (vector === undefined || by === 0) return;
  if (vector.type === "int64") {
    const big = BigInt(by);
    for (let i = 0; i < batch.length; i++) vector.values[i]! += big;
  } else if (vector.type === "int32") {
    for (let i = 0; i < batch.length; i++) vector.values[i]! += by;
  } else {
    throw new TypeError(`${batch.table}.${column} is not an ordinal column`);
  }
}
