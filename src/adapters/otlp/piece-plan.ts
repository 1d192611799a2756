/**
 * Where to cut a large OTLP protobuf request into pieces that can be scanned at once:
 * between its top-level `resource_spans` fields, which protobuf frames by length, so a cut
 * there is proven by walking the framing alone (a tag byte and a length per field, the
 * bodies skipped). Each piece is then a request of its own, whose ResourceSpans are the
 * whole request's, in order. A payload whose framing is not that (length-prefixed
 * requests, another field, a length past the end) gets no plan: the sequential scan reads
 * it, and reports what is wrong with it.
 */
import type { PayloadFile } from "../adapter.ts";
import { isLengthPrefixed } from "./detect.ts";

export interface OtlpPiecePlan {
  /** [start, end) of each piece: whole top-level fields. */
  pieces: [number, number][];
  /** ResourceSpans before each piece (their ordinals continue across pieces). */
  resourcesBefore: number[];
}

/** Bytes read at a time while walking the framing. */
const WINDOW_BYTES = 1 << 20;
/** resource_spans = 1, length-delimited. */
const RESOURCE_SPANS_TAG = 0x0a;

export async function planOtlpPieces(
  file: PayloadFile,
  pieceBytes: number,
): Promise<OtlpPiecePlan | null> {
  if (file.size < 2 * pieceBytes) return null;
  let window = await file.read(0, Math.min(file.size, WINDOW_BYTES));
  if (isLengthPrefixed(window.subarray(0, 5))) return null;
  let windowStart = 0;
  const pieces: [number, number][] = [];
  const resourcesBefore: number[] = [0];
  let pieceStart = 0;
  let resources = 0;
  for (let at = 0; at < file.size; ) {
    // A field header is at most 11 bytes: the tag and a 10-byte varint.
    if (at + 11 > windowStart + window.length && windowStart + window.length < file.size) {
      windowStart = at;
      window = await file.read(at, Math.min(file.size, at + WINDOW_BYTES));
    }
    let p = at - windowStart;
    if (window[p++] !== RESOURCE_SPANS_TAG) return null;
    let length = 0;
    let scale = 1;
    for (let shift = 0; ; shift += 7) {
      if (p >= window.length || shift > 49) return null;
      const byte = window[p++]!;
      length += (byte & 0x7f) * scale;
      scale *= 128;
      if ((byte & 0x80) === 0) break;
    }
    const end = windowStart + p + length;
    if (end > file.size) return null;
    if (at - pieceStart >= pieceBytes) {
      pieces.push([pieceStart, at]);
      resourcesBefore.push(resources);
      pieceStart = at;
    }
    resources++;
    at = end;
  }
  pieces.push([pieceStart, file.size]);
  return pieces.length > 1 ? { pieces, resourcesBefore } : null;
}
