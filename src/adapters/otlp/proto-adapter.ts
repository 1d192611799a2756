/**
 * The `otlp-protobuf` adapter: OTLP ExportTraceServiceRequest protobuf bodies (gzip
 * handled by the worker), or the Collector file exporter's length-prefixed run of
 * them, as the otel_* tables. Read by the WASM wire scanner on both entry points.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import { otlpProtoDescription } from "./description.ts";
import { requestBytes } from "./length-prefixed.ts";
import { otlpEvidence } from "./otlp-evidence.ts";
import { OtlpRows } from "./otlp-rows.ts";
import { runPieces } from "../common/piece-runner.ts";
import { planOtlpPieces } from "./piece-plan.ts";
import { takeOtlpPiece } from "./piece-merge.ts";
import { type OtlpPieceResult, scanOtlpPiece } from "./piece-scan.ts";
import { scanOtlpProto } from "./scan-proto.ts";

/**
 * Bytes per piece when a request is scanned in pieces. A piece holds all its rows until it
 * is taken (about 4x its bytes as Arrow columns), so pieces are smaller than a trace's.
 */
const PIECE_BYTES = 4 << 20;

const SELF = { name: otlpProtoDescription.name, version: otlpProtoDescription.version };

export const otlpProtoAdapter: ProducerAdapter = {
  ...otlpProtoDescription,
  pieceScan: { scanner: "otlp-protobuf", rowsWhileScanning: true },
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    // Spans, events and links go to the sink from scanOtlpProto's own columns; `rows` keeps
    // resources, scopes and counts.
    const rows = new OtlpRows(input.sink, input.limits.maxEvents);
    const pieces = input.pieces;
    const plan = pieces
      ? await planOtlpPieces(pieces.file, pieces.pieceBytes ?? PIECE_BYTES)
      : null;
    if (pieces && plan) {
      // Cuts between top-level fields are proven by the framing itself: no piece can disprove one.
      const task = (k: number) => ({
        prefix: [0, 0] as [number, number],
        piece: plan.pieces[k]!,
        offset: plan.pieces[k]![0],
        last: k === plan.pieces.length - 1,
        limits: {
          maxNestingDepth: input.limits.maxNestingDepth,
          maxArgsBytes: input.limits.maxArgsBytes,
        },
      });
      await runPieces<OtlpPieceResult>({
        scanner: "otlp-protobuf",
        threads: pieces.threads,
        count: plan.pieces.length,
        task,
        scanHere: async (k) =>
          scanOtlpPiece({
            bytes: await pieces.file.read(...plan.pieces[k]!),
            offset: plan.pieces[k]![0],
            limits: task(k).limits,
          }),
        take: async (result, k) => {
          await takeOtlpPiece(
            rows,
            input.sink,
            input.limits.maxEvents,
            result,
            plan.resourcesBefore[k]!,
          );
          return true;
        },
      });
      return otlpEvidence(rows, SELF);
    }
    await scanOtlpProto(
      // The scanner copies what it is given into its own memory: chunks go back as it is done.
      requestBytes(input.chunks, input.releaseChunk),
      input.limits.maxNestingDepth,
      rows,
      input.sink,
      input.limits.maxEvents,
    );
    return otlpEvidence(rows, SELF);
  },
};
