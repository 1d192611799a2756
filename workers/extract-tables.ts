/**
 * Runs one adapter over the payload and writes every table it declares as Parquet parts.
 * Streaming adapters write their large tables while they parse (through an
 * EvidenceSink); the rest of their tables, and everything of whole-payload adapters,
 * is written at the end. A table the adapter declares but did not fill is written empty.
 */
import type {
  AdapterLimits,
  EvidenceSink,
  ProducerAdapter,
  StreamExtractInput,
  StreamedEvidence,
} from "../src/adapters/adapter.ts";
import type { EvidenceTableName } from "../src/domain/evidence-schema.ts";
import { FlameoxError } from "../src/domain/errors.ts";
import type { NormalizedEvidence } from "../src/domain/normalized-evidence.ts";
import type { Provenance } from "../src/storage/evidence-metadata.ts";
import { collectPayload, type Payload } from "./payload-stream.ts";
import { FileSpillSpace } from "./spill-space.ts";
import {
  encodeInline,
  finishTables,
  TableParts,
  type PartEncoder,
  type WrittenPart,
} from "./table-parts.ts";

export type ExtractedEvidence = Omit<NormalizedEvidence, "tables">;

export interface ExtractionOutput {
  evidence: ExtractedEvidence;
  tables: WrittenPart[];
  /** Threads that nested the trace's slices beside the parser (see nest-offload.ts). */
  nestThreads: number;
}

export async function extractTables(
  adapter: ProducerAdapter,
  payload: Payload,
  options: {
    displayName: string;
    limits: AdapterLimits;
    context?: Record<string, unknown> | null;
    outputDir: string;
    /** A promise while the payload is still landing (payload-landing.ts). */
    provenance: Provenance | Promise<Provenance>;
    encode?: PartEncoder;
    /** The payload file and threads for adapters that scan it in pieces (see PieceThreads). */
    pieces?: StreamExtractInput["pieces"];
    /** Where spool runs can be written off this thread (the encode pool's thread). */
    runOffload?: StreamExtractInput["runOffload"];
    /** The payload's size as stored, when known (StreamExtractInput.payloadBytes). */
    payloadBytes?: number;
    /** Whether a trace's slices may be nested on a thread of their own (nest-offload.ts). */
    nestThreads?: boolean;
    /**
     * Runs wherever garbage is made: after each row batch, each spilled block and each
     * part written (the worker's MemoryGovernor collects there when RSS is high). The
     * spill matters: a long-open B makes the merge hold back a track's events for minutes
     * without writing a row, and a 2 GB trace's worker then grew by ~250 bytes of garbage
     * per held event (1 GB) when only rows were counted.
     */
    checkpoint?: () => void;
    /** Where a pass has ended (StreamExtractInput.passEnded). */
    passEnded?: () => void;
  },
): Promise<ExtractionOutput> {
  const checkpoint = options.checkpoint ?? (() => {});
  const writers = new Map<EvidenceTableName, TableParts>();
  const writer = (table: EvidenceTableName): TableParts => {
    let parts = writers.get(table);
    if (!parts) {
      if (!adapter.tables.includes(table))
        throw new FlameoxError(
          "INTERNAL_ERROR",
          `Adapter ${adapter.name} wrote ${table}, which it does not declare`,
        );
      parts = new TableParts(
        table,
        options.outputDir,
        options.provenance,
        options.encode ?? encodeInline,
        checkpoint,
      );
      writers.set(table, parts);
    }
    return parts;
  };
  let evidence: ExtractedEvidence;
  let nestThreads = 0;
  let spillRemoved: Promise<void> = Promise.resolve();
  if (adapter.extractStream) {
    // Row batches are checkpoints too: the merge pass after a trace's scan reads no payload
    // but builds every row batch.
    const sink: EvidenceSink = {
      writeBatch: (batch) => {
        checkpoint();
        return writer(batch.table).add(batch);
      },
      endTable: (table) => writer(table).flushLast(),
    };
    // Spilled runs live beside the parts being written: the staging area, removed with it on
    // failure.
    const spill = new FileSpillSpace(options.outputDir, checkpoint, undefined, true);
    // Loaded only when used: the thread's side of nesting is a trace's code.
    const nestOffload = options.nestThreads
      ? (await import("./nest-offload.ts")).startNestOffload(spill, options.outputDir)
      : undefined;
    let streamed: StreamedEvidence;
    try {
      streamed = await adapter.extractStream({
        chunks: payload.chunks,
        releaseChunk: payload.release,
        payloadBytes: options.payloadBytes,
        displayName: options.displayName,
        limits: options.limits,
        context: options.context ?? null,
        sink,
        spill,
        pieces: options.pieces,
        runOffload: options.runOffload,
        nestOffload,
        checkpoint,
        passEnded: options.passEnded,
      });
    } finally {
      nestThreads = nestOffload?.opened ?? 0;
      nestOffload?.closeAll();
      spill.disposeAll();
    }
    // Deleted while the last tables are written; gone before any part is answered for. (A failed
    // extraction's are removed with the staging area.)
    spillRemoved = spill.removed();
    // Awaited below; a failure to write the tables first is the one reported.
    spillRemoved.catch(() => {});
    for (const table of adapter.tables) {
      const buffer = streamed.tables[table];
      if (buffer) await writer(table).addBuffer(buffer);
    }
    const { tables: _, streamed: __, ...rest } = streamed;
    evidence = rest;
  } else {
    const bytes = await collectPayload(payload.chunks);
    const whole = adapter.extract({
      bytes,
      displayName: options.displayName,
      limits: options.limits,
      context: options.context ?? null,
    });
    for (const table of adapter.tables) await writer(table).addBuffer(whole.tables[table]);
    const { tables: _, ...rest } = whole;
    evidence = rest;
  }
  for (const table of adapter.tables) writer(table);
  const tables = await finishTables(writers, adapter.tables);
  await spillRemoved;
  return { evidence, tables, nestThreads };
}
