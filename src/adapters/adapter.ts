/**
 * The interface every producer adapter implements. An adapter owns one native format:
 * it recognises it, validates it and extracts normalized evidence from it. Adapters
 * are pure: they get bytes that are already in memory (decompressed, size-capped by the
 * caller) and never touch the filesystem, the network or the control plane.
 */
import type { ColumnBatch } from "../domain/column-batch.ts";
import type { EvidenceTableName, FrameMetric } from "../domain/evidence-schema.ts";
import type { NormalizedEvidence } from "../domain/normalized-evidence.ts";
import type { ArtifactKind } from "../domain/records.ts";
import type { TableBuffer } from "../domain/table-buffer.ts";

export interface AdapterLimits {
  /**
   * Maximum number of trace events or samples to normalize before failing with ARTIFACT_TOO_LARGE.
   */
  maxEvents: number;
  /**
   * Maximum JSON nesting depth accepted before parsing (guards JSON.parse against absurd nesting).
   */
  maxNestingDepth: number;
  /** Maximum bytes of `args` JSON kept per trace event; longer args are truncated and flagged. */
  maxArgsBytes: number;
}

export const DEFAULT_ADAPTER_LIMITS: AdapterLimits = {
  maxEvents: 50_000_000,
  maxNestingDepth: 256,
  maxArgsBytes: 1024,
};

export interface DetectInput {
  /** Up to the first 64 KiB of the (decompressed) payload, decoded as UTF-8. */
  head: string;
  /** The same bytes undecoded, for binary formats (protobuf); absent in older callers. */
  headBytes?: Uint8Array;
  displayName: string;
}

export interface ExtractInput {
  /** The whole decompressed payload. */
  bytes: Uint8Array;
  displayName: string;
  limits: AdapterLimits;
  /**
   * What the file does not say about itself, from the artifact that declared it (a companion's
   * context); absent otherwise.
   */
  context?: Record<string, unknown> | null;
}

/** What every adapter declares, whichever pipeline it runs. */
export interface AdapterDescription {
  /** Stable adapter name, e.g. `v8-cpuprofile`. */
  readonly name: string;
  readonly version: string;
  /** Artifact kind the format belongs to (`sample_profile`, `execution_trace`…). */
  readonly artifactKind: ArtifactKind;
  readonly mediaType: string;
  /**
   * The evidence tables this adapter produces. Exactly these are published (even when
   * empty), so "this artifact has no samples" (an empty table) stays distinct from "this
   * artifact is not a profile" (no table at all).
   */
  readonly tables: readonly EvidenceTableName[];
  /** Returns a confidence in [0, 1] that the payload is this format; 0 means no. */
  detect(input: DetectInput): number;
}

/**
 * A format whose files stay small by nature (benchmark results, coverage, test reports):
 * the worker collects the payload and parses it whole.
 */
export interface WholePayloadAdapter extends AdapterDescription {
  /**
   * Parses and normalizes. Throws FlameoxError ARTIFACT_PARSE_FAILED (malformed or wrong
   * shape) or ARTIFACT_TOO_LARGE (over a limit); never returns partial evidence as complete.
   */
  extract(input: ExtractInput): NormalizedEvidence;
  extractStream?: never;
  pieceScan?: never;
}

/**
 * A format whose files grow with what they record (profiles, traces): the worker feeds the
 * payload chunk by chunk and the adapter writes its large tables through a sink in column
 * batches, so memory does not grow with the artifact. This is its only pipeline.
 */
export interface StreamingAdapter extends AdapterDescription {
  /**
   * Parses and normalizes as `WholePayloadAdapter.extract` does (same errors, never partial
   * evidence as complete), writing the rows of the tables it names in `streamed` to `sink`.
   */
  extractStream(input: StreamExtractInput): Promise<StreamedEvidence>;
  extract?: never;
  /**
   * The piece scanner `extractStream` can use on `pieces` (threads are started only for
   * adapters that have one). `rowsWhileScanning`: rows are written, and so Parquet parts
   * encoded, while the payload is scanned (OTLP), so the encoding thread already has a
   * core during the scan; a trace's rows come after its scan, which leaves every core
   * but the parser's free then.
   */
  pieceScan?: { scanner: PieceScanner; rowsWhileScanning: boolean };
}

/**
 * The interface every producer adapter implements: exactly one pipeline per format, either
 * whole-payload or streaming (the type forbids both).
 */
export type ProducerAdapter = WholePayloadAdapter | StreamingAdapter;

/**
 * An adapter as format detection sees it: what it declares, and a loader for its parser.
 * Each format's description (and detection) lives in a module of its own, apart from the
 * parsing code, so the parse worker loads only the parser of the format it found
 * (adapter-entries.ts).
 */
export interface AdapterEntry extends AdapterDescription {
  load(): Promise<ProducerAdapter>;
}

/** Where a streaming adapter writes the rows of its large tables. */
export interface EvidenceSink {
  /** Appends a batch of rows; awaited, so a slower writer slows the parser down. */
  writeBatch(batch: ColumnBatch): Promise<void>;
  /**
   * Says that `table` has all its rows: its last part is written now, while the adapter goes on
   * with other tables, rather than at the end. Optional for adapters and for sinks.
   */
  endTable?(table: EvidenceTableName): Promise<void>;
}

export interface StreamExtractInput {
  /** The decompressed payload, in order, in chunks of any size. */
  chunks: AsyncIterable<Uint8Array>;
  /**
   * Says the adapter is done with a chunk of `chunks` and keeps no view of it, so its memory may
   * be read into again (a fresh buffer per chunk costs its page faults). Optional on both sides.
   */
  releaseChunk?: (chunk: Uint8Array) => void;
  displayName: string;
  limits: AdapterLimits;
  context?: Record<string, unknown> | null;
  sink: EvidenceSink;
  /**
   * Scratch files for intermediate state that would otherwise grow with the artifact
   * (trace events waiting to be ordered per track). Without one, adapters spill to memory.
   */
  spill?: SpillSpace;
  /**
   * The payload's size as stored, when known before it is read (a compressed payload yields more
   * than this): a hint to size first buffers by, never a limit.
   */
  payloadBytes?: number;
  /**
   * Events an adapter holds in memory before spilling a run, or before writing them as one batch
   * (tests lower it to exercise merging and batching).
   */
  spoolRunEvents?: number;
  /** Waiting events of a track held in memory before overflowing (tests lower it). */
  pendingEventsInMemory?: number;
  /** Distinct stacks a trie holds before spilling (tests lower it to exercise the merge). */
  maxStacksInMemory?: number;
  /**
   * Bytes of compact samples an adapter holds in memory while it waits for what names them
   * (a table written after the samples) before spilling them (tests lower it to exercise the
   * read-back).
   */
  recordBytesInMemory?: number;
  /**
   * Called where a long pass that writes no rows makes garbage (reading spooled records back
   * and aggregating them): the worker collects there when its resident size is high. Rows
   * written through `sink` and bytes spilled are checkpoints already.
   */
  checkpoint?: () => void;
  /**
   * Called where a pass has ended and what it held is garbage all at once (a scan's buffers and
   * the scanner's memory): the worker collects there unless it is small, before the next pass
   * allocates beside that garbage.
   */
  passEnded?: () => void;
  /**
   * Writes spool runs on another thread (the encoding thread, idle while a trace is scanned):
   * without it, runs are written by the adapter's own thread.
   */
  runOffload?: RunOffload;
  /** Threads to nest a trace's slices on while its rows are written (see remote-nester.ts). */
  nestOffload?: NestOffload;
  /**
   * The payload as a plain file, when it is one (not compressed), with threads to scan
   * pieces of it at once: an adapter that can cut its format into pieces at proven
   * boundaries reads it through these instead of `chunks`.
   */
  pieces?: { file: PayloadFile; threads: PieceThreads; pieceBytes?: number };
}

/** A payload file read by byte range. */
export interface PayloadFile {
  readonly size: number;
  /** Bytes [start, end) of the file. */
  read(start: number, end: number): Promise<Uint8Array>;
}

/** The piece scanners a thread can run, by format (workers/piece-thread.ts). */
export type PieceScanner = "chrome-trace" | "otlp-protobuf";

/** One piece to scan: byte ranges of the payload file, which the thread reads itself. */
export interface PieceTask {
  /**
   * [start, end) of what the scanner reads first: the document's start, up to where pieces begin.
   */
  prefix: [number, number];
  /** [start, end) of the piece. */
  piece: [number, number];
  /** The piece's offset in the document as the scanner counts it (for error offsets). */
  offset: number;
  /** The last piece runs to the document's end. */
  last: boolean;
  limits: Pick<AdapterLimits, "maxNestingDepth" | "maxArgsBytes">;
}

/** Threads that scan pieces of the payload file. */
export interface PieceThreads {
  /** Pieces that can be scanned at once. */
  readonly count: number;
  /**
   * Runs a format's piece scanner on a thread; the result is that scanner's (plain data, buffers
   * transferred).
   */
  run(scanner: PieceScanner, task: PieceTask): Promise<unknown>;
  /**
   * Ends the threads once the scan needs them no more (their memory goes back before the rows are
   * built).
   */
  release(): Promise<void>;
}

/**
 * Sorts a spool run and writes it to its spill file on another thread (trace-events/event-spool.ts).
 */
export interface RunOffload {
  /**
   * Takes the run, or returns null when it cannot (the thread is busy, the file has no path): the
   * caller then writes it itself. Once taken, the run belongs to the other thread (its buffers
   * move there) and `file` holds it when the promise resolves, to the run's `data` moved back
   * (its arrays the caller's again, to fill anew) or to undefined.
   */
  write(file: SpillFile, run: HandedOverRun): Promise<unknown> | null;
  /**
   * Has the other thread make columns for a run of `events` events, every column at its default,
   * and resolves to their parts (TraceColumnParts), moved here; null when it cannot now. Fresh
   * memory costs its first touch, which is then the other thread's.
   */
  spare?(events: number): Promise<unknown> | null;
}

/**
 * The way to a thread nesting a trace's slices (trace-events/remote-nester.ts sends the ops;
 * workers/nest-offload.ts is the thread), or to one in-process in tests.
 */
export interface NestChannel {
  /** Where the next chunk's ops go: OPS_PER_CHUNK ops of three float64 each. */
  chunk(): Float64Array;
  /** Passes the chunk's first `count` ops to the other side; `chunk()` gives the next one. */
  send(count: number): void;
  /**
   * No more ops: resolves to what the other side nested (remote-nester.ts's NestedParts),
   * rejects with its failure.
   */
  finish(): Promise<unknown>;
  /** Stops the other side, whatever it was doing (after a failure). */
  close(): void;
}

/** Opens channels to threads that nest slices (StreamExtractInput.nestOffload). */
export interface NestOffload {
  /**
   * A channel to a new nesting thread for `frameCount` frames of `metric`, its stack trie
   * spilling into `spill` (none: it grows); null when no thread can start.
   */
  open(
    frameCount: number,
    metric: FrameMetric,
    spill?: { space: SpillSpace; maxStacks?: number },
  ): NestChannel | null;
}

/** A spool run as it goes to another thread. */
export interface HandedOverRun {
  /** The run as plain data and the buffers it holds (to transfer); the run is not used after. */
  handOver(): { data: unknown; buffers: ArrayBuffer[] };
}

/** Where adapters spill: append-only scratch files, deleted when disposed. */
export interface SpillSpace {
  create(): SpillFile;
}

export interface SpillFile {
  /** Appends the bytes at the end of the file. */
  append(bytes: Uint8Array): void;
  /** Replaces bytes already written, at `position` (which plus the length must not pass `size`). */
  overwrite(bytes: Uint8Array, position: number): void;
  /** Fills `target` with the bytes at `position`; returns how many were read. */
  read(target: Uint8Array, position: number): number;
  readonly size: number;
  /**
   * Where the file is, for a reader that must open it itself (SQLite reads a database from a
   * path): absent where spills are not files. Only this process writes it: through `append`, or
   * from another of its threads through the path (see `appendedElsewhere`).
   */
  readonly path?: string;
  /** Counts `bytes` appended through `path` by another thread of this process. */
  appendedElsewhere?(bytes: number): void;
  /** Releases the file and deletes it. */
  dispose(): void;
}

/** A streaming adapter's result: small tables whole, the rest already written through the sink. */
export interface StreamedEvidence extends Omit<NormalizedEvidence, "tables"> {
  tables: Partial<Record<EvidenceTableName, TableBuffer>>;
  /** Tables whose rows went through the sink (possibly none of them). */
  streamed: EvidenceTableName[];
}
