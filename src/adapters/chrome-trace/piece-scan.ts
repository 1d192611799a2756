/**
 * One piece of a large Chrome trace, scanned on its own (on a thread, while other pieces
 * are scanned on the others). A piece is a run of whole elements of the events array; the
 * scanner first reads a copy of the document's start up to that array's `[`, so it stands
 * exactly where the piece begins, then the piece. A piece that is not the last must end
 * right after one of the array's elements: the scanner's own position says whether it did,
 * which proves (or disproves) where the piece was cut.
 *
 * The result is plain data in the piece's own numbering (string ids, tracks, frames,
 * nanoseconds relative to its first timestamp); piece-merge.ts maps it into the whole
 * trace's, in piece order, so the rows are exactly those of one sequential scan.
 */
import type { AdapterLimits } from "../adapter.ts";
import { type ErrorCode, FlameoxError } from "../../domain/errors.ts";
import { FrameRegistry } from "../common/frame-registry.ts";
import type { ScanCounts } from "../trace-events/event-kinds.ts";
import { SliceFrames } from "../trace-events/slice-frames.ts";
import { TraceColumns } from "../trace-events/trace-columns.ts";
import type { JsonBatch } from "../wasm/json-batch.ts";
import { JsonScanner } from "../wasm/json-scanner.ts";
import { JsonBetween } from "../wasm/scanner-abi.ts";
import type { ProfileEventFields } from "./embedded-profiles.ts";
import { EventScan } from "./event-scan.ts";
import { TraceDocument, type TraceDocumentFields } from "./trace-document.ts";
import { eventArrayNodes, REC_CONTAINER, REC_EVENT, traceProgram } from "./trace-program.ts";
import { TRACE_FORMAT } from "./trace-producer.ts";
import { type TrackNaming, TrackRegistry } from "./tracks.ts";

export interface TracePieceInput {
  /**
   * The document from its start (after a byte-order mark) up to and including its events array's
   * `[`.
   */
  prefix: Uint8Array;
  /** The piece's bytes: whole elements of the events array, the first at the start. */
  bytes: Uint8Array;
  /** The piece's offset in the document (after a byte-order mark), for error offsets. */
  offset: number;
  /**
   * The last piece runs to the document's end (and may close a cut-off array); the others end right
   * after an element.
   */
  last: boolean;
  limits: Pick<AdapterLimits, "maxNestingDepth" | "maxArgsBytes">;
}

/** The per-event columns of a piece, each owning its buffer (transferred from the thread). */
export interface PieceColumns {
  kind: Uint8Array;
  flags: Uint8Array;
  track: Int32Array;
  startNs: Float64Array;
  durNs: Float64Array;
  threadNs: Float64Array;
  frame: Int32Array;
  name: Int32Array;
  cat: Int32Array;
  ph: Int32Array;
  argsRef: Int32Array;
  argsStarts: Float64Array;
  argsLengths: Int32Array;
  argsBytes: Uint8Array;
}

export interface ScannedPiece {
  ok: true;
  proven: true;
  /** Elements of the events array in the piece, skipped ones included. */
  events: number;
  columns: PieceColumns;
  /** The piece's strings: canonical id → text. */
  stringIds: Int32Array;
  strings: string[];
  /** The first timestamp's whole microseconds (NsClock base), null when no event had one. */
  baseUs: number | null;
  counts: ScanCounts;
  /** Per piece track, the latest end of its events, ns relative to baseUs. */
  trackEndNs: Float64Array;
  tracks: { ids: string[]; pids: (string | null)[]; tids: (string | null)[] };
  namings: TrackNaming[];
  /** Slice frames in the piece's order: [name, category]. */
  frames: [string, string | null][];
  /** Events that may carry a V8 profile, in order: their fields, piece track and timestamp. */
  profileEvents: [ProfileEventFields, number, number][];
  /** The top-level fields (from the last piece only). */
  document: TraceDocumentFields | null;
  repaired: boolean;
}

/**
 * The piece did not end right after an element of the events array (or did not start at one): it
 * was cut in the wrong place.
 */
export interface UnprovenPiece {
  ok: true;
  proven: false;
}

export interface FailedPiece {
  ok: false;
  /** Elements of the events array scanned before the error. */
  events: number;
  error: {
    code: ErrorCode;
    message: string;
    remediation: string[];
    details?: Record<string, unknown>;
  };
}

export type TracePieceResult = ScannedPiece | UnprovenPiece | FailedPiece;

/** The buffers of a result, to transfer rather than copy it off the thread. */
export function pieceBuffers(result: TracePieceResult): ArrayBuffer[] {
  if (!result.ok || !result.proven) return [];
  return [
    ...Object.values(result.columns).map((a) => a.buffer as ArrayBuffer),
    result.stringIds.buffer as ArrayBuffer,
    result.trackEndNs.buffer as ArrayBuffer,
  ];
}

/**
 * Scans a piece; its errors come back as data, to be raised in piece order where the pieces meet.
 */
export function scanTracePiece(input: TracePieceInput): TracePieceResult {
  const seen = { events: 0 };
  try {
    return scan(input, seen);
  } catch (error) {
    if (!(error instanceof FlameoxError)) throw error;
    return {
      ok: false,
      events: seen.events,
      error: {
        code: error.code,
        message: error.message,
        remediation: error.remediation,
        details: error.details,
      },
    };
  }
}

/** A failed piece's error, as the scan raised it. */
export function pieceError(failed: FailedPiece): FlameoxError {
  return new FlameoxError(failed.error.code, failed.error.message, {
    remediation: failed.error.remediation,
    details: failed.error.details,
  });
}

/**
 * The scanner of the thread's previous piece, whose memory the next one reuses: only one
 * that ended cleanly between two elements (or at the document's end), never one left
 * inside a token by an error or a wrong cut.
 */
let previous: JsonScanner | null = null;
/** The thread's event columns, emptied for each piece but keeping their capacity. */
const columns = new TraceColumns();

function scan(input: TracePieceInput, seen: { events: number }): ScannedPiece | UnprovenPiece {
  const prefixLength = input.prefix.length;
  const scanner = JsonScanner.reopenSync(previous, traceProgram(), {
    format: TRACE_FORMAT,
    maxDepth: input.limits.maxNestingDepth,
    truncateJsonAt: input.limits.maxArgsBytes,
    documentOffset: (at) => (at < prefixLength ? at : input.offset + (at - prefixLength)),
  });
  previous = null;
  const cols = columns;
  cols.clear();
  const events = { cols, add: () => cols.add(seen.events++) };
  const tracks = new TrackRegistry();
  tracks.namings = [];
  const frames = new FrameRegistry();
  const profileEvents: [ProfileEventFields, number, number][] = [];
  const scan = new EventScan(
    events,
    scanner.strings,
    tracks,
    new SliceFrames(frames),
    { observeEvent: (e, t, ts) => profileEvents.push([e, t, ts]) },
    input.limits.maxArgsBytes,
  );
  const document = new TraceDocument();
  const onBatch = (b: JsonBatch): void => {
    for (let r = 0; r < b.count; r++) {
      if (b.type(r) === REC_EVENT) scan.event(b, r);
      else if (b.type(r) === REC_CONTAINER) document.observe(b, r);
    }
  };
  scanner.push(input.prefix, onBatch);
  const start = scanner.position();
  const arrays = eventArrayNodes();
  if (start.between !== JsonBetween.FIRST || !arrays.includes(start.node)) return unproven();
  scanner.push(input.bytes, onBatch);
  let repaired = false;
  if (input.last) {
    repaired = scanner.finish(true, onBatch).repaired;
  } else {
    const end = scanner.position();
    if (end.between !== JsonBetween.AFTER || end.node !== start.node || end.depth !== start.depth)
      return unproven();
    scanner.flush(onBatch);
  }
  previous = scanner;
  const n = seen.events;
  const stringIds: number[] = [];
  const strings: string[] = [];
  scanner.strings.values.forEach((value, id) => {
    if (scanner.strings.id(id) !== id) return;
    stringIds.push(id);
    strings.push(value);
  });
  return {
    ok: true,
    proven: true,
    events: n,
    columns: {
      kind: cols.kind.array.slice(0, n),
      flags: cols.flags.array.slice(0, n),
      track: cols.track.array.slice(0, n),
      startNs: cols.startNs.array.slice(0, n),
      durNs: cols.durNs.array.slice(0, n),
      threadNs: cols.threadNs.array.slice(0, n),
      frame: cols.frame.array.slice(0, n),
      name: cols.name.array.slice(0, n),
      cat: cols.cat.array.slice(0, n),
      ph: cols.ph.array.slice(0, n),
      argsRef: cols.argsRef.array.slice(0, n),
      argsStarts: cols.args.starts.array.slice(0, cols.args.starts.length),
      argsLengths: cols.args.lengths.array.slice(0, cols.args.lengths.length),
      argsBytes: cols.args.buffer.slice(0, cols.args.bytes),
    },
    stringIds: Int32Array.from(stringIds),
    strings,
    baseUs: scan.clock?.baseUs ?? null,
    counts: scan.counts,
    trackEndNs: Float64Array.from(scan.trackEndNs),
    tracks: { ids: tracks.ids, pids: tracks.pids, tids: tracks.tids },
    namings: tracks.namings,
    frames: frames.records.map((f) => [f.function, f.module ?? null]),
    profileEvents,
    document: input.last ? document.fields() : null,
    repaired,
  };
}

function unproven(): UnprovenPiece {
  return { ok: true, proven: false };
}
