/**
 * An OTLP protobuf request scanned in pieces (cut between top-level resource_spans
 * fields, each piece scanned on its own, taken in order) must give exactly what one
 * sequential scan gives: every row of every table in order, the summary, the limitations
 * and the errors. Pieces are scanned here in this thread and, once, on real threads.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PieceTask, StreamExtractInput } from "../../src/adapters/adapter.ts";
import { planOtlpPieces } from "../../src/adapters/otlp/piece-plan.ts";
import { scanOtlpPiece } from "../../src/adapters/otlp/piece-scan.ts";
import { otlpProtoAdapter } from "../../src/adapters/otlp/proto-adapter.ts";
import type { EvidenceTableName } from "../../src/domain/evidence-schema.ts";
import { generateOtlpProto } from "../../fixtures/generators/otlp-proto.ts";
import { startPiecePool } from "../../workers/piece-pool.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";
import { importOutcome, memoryFile, settle } from "./piece-harness.ts";
import { runStream, type StreamRun } from "./stream-harness.ts";

const dir = mkdtempSync(join(tmpdir(), "flameox-otlp-pieces-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function memoryPieces(
  bytes: Uint8Array,
  pieceBytes: number,
  log: { scanned: number },
): NonNullable<StreamExtractInput["pieces"]> {
  const file = memoryFile(bytes);
  const read = file.range;
  return {
    file,
    pieceBytes,
    threads: {
      count: 2,
      run: async (_scanner, task: PieceTask) => {
        log.scanned++;
        return scanOtlpPiece({ bytes: read(task.piece), offset: task.offset, limits: task.limits });
      },
      release: async () => {},
    },
  };
}

const STREAMED: EvidenceTableName[] = ["otel_spans", "otel_span_events", "otel_span_links"];

async function both(bytes: Uint8Array, pieceBytes: number, limits = {}) {
  const log = { scanned: 0 };
  const sequential = await settle(runStream(otlpProtoAdapter, bytes, { limits }).then(outcome));
  const pieced = await settle(
    runStream(otlpProtoAdapter, bytes, {
      limits,
      pieces: memoryPieces(bytes, pieceBytes, log),
    }).then(outcome),
  );
  return { sequential, pieced, log };
}

let generated: Uint8Array;
async function generatedRequest(): Promise<Uint8Array> {
  if (!generated) {
    const path = join(dir, "generated.pb");
    await generateOtlpProto(path, 3 << 20);
    // A Uint8Array, not the Buffer: Buffer.slice is a view, and the cases below mutate copies.
    generated = new Uint8Array(readFileSync(path));
  }
  return generated;
}

describe("an OTLP protobuf request scanned in pieces", () => {
  test("gives the rows, summary and limitations of one sequential scan (generated request, every " +
    "corpus request)", async () => {
    const inputs: [string, Uint8Array, number][] = [
      ["generated", await generatedRequest(), 200 << 10],
    ];
    for (const file of corpusFiles("otlp-proto")) {
      const bytes = loadPayload(file.path);
      inputs.push([file.name, bytes, Math.max(16, Math.floor(bytes.length / 5))]);
    }
    for (const [name, bytes, pieceBytes] of inputs) {
      const { sequential, pieced, log } = await both(bytes, pieceBytes);
      expect({ name, ok: "ok" in sequential }).toEqual({ name, ok: true });
      expect({ name, equal: Bun.deepEquals(pieced, sequential) }).toEqual({ name, equal: true });
      const plan = await planOtlpPieces(memoryFile(bytes), pieceBytes);
      // A request of one ResourceSpans has nowhere to cut; the generated one has many.
      if (name === "generated") expect(log.scanned).toBeGreaterThan(5);
      if (plan === null) expect(log.scanned).toBe(0);
    }
  }, 60_000);

  test(
    "ordinals continue across pieces: span_index and resource_index are the " + "request's",
    async () => {
      const { pieced } = await both(await generatedRequest(), 100 << 10);
      if (!("ok" in pieced)) throw new Error("the pieced import failed");
      const spans = pieced.ok.streamed.otel_spans!;
      expect(spans.map((s) => Number(s.span_index))).toEqual(spans.map((_, i) => i));
      const resources = pieced.ok.buffered.otel_resources!;
      expect(resources.map((r) => Number(r.resource_index))).toEqual(resources.map((_, i) => i));
    },
  );

  test(
    "raises the sequential scan's error at the same offset, and the span limit first when it " +
      "comes first",
    async () => {
      const bytes = (await generatedRequest()).slice();
      // An invalid wire type inside a span, ~70% in: the byte after a resource_spans header becomes
      // tag 0x0f.
      const plan = (await planOtlpPieces(memoryFile(bytes), 100 << 10))!;
      const field = plan.pieces[Math.floor(plan.pieces.length * 0.7)]![0];
      let at = field + 1;
      while (bytes[at]! & 0x80) at++;
      bytes[at + 1] = 0x0f;
      const broken = await both(bytes, 100 << 10);
      expect("error" in broken.sequential && broken.sequential.error).toContain(
        "ARTIFACT_PARSE_FAILED",
      );
      expect(broken.pieced).toEqual(broken.sequential);
      const limited = await both(await generatedRequest(), 100 << 10, { maxEvents: 2000 });
      expect("error" in limited.sequential && limited.sequential.error).toContain(
        "ARTIFACT_TOO_LARGE",
      );
      expect(limited.pieced).toEqual(limited.sequential);
    },
  );

  test(
    "length-prefixed requests and a framing that is not resource_spans get no " + "pieces",
    async () => {
      const prefixed = new Uint8Array([0, 0, 0, 3, 0x0a, 1, 0]);
      expect(await planOtlpPieces(memoryFile(prefixed), 1)).toBeNull();
      const bytes = (await generatedRequest()).slice();
      bytes[0] = 0x12;
      expect(await planOtlpPieces(memoryFile(bytes), 100 << 10)).toBeNull();
    },
  );

  test("pieces scanned on real threads from a file give the rows of a sequential " +
    "scan", async () => {
    const bytes = await generatedRequest();
    const path = join(dir, "threads.pb");
    writeFileSync(path, bytes);
    const pool = startPiecePool(path, bytes.length, 2);
    try {
      const sequential = outcome(await runStream(otlpProtoAdapter, bytes));
      const pieced = outcome(
        await runStream(otlpProtoAdapter, bytes, {
          pieces: { ...pool.pieces!, pieceBytes: 256 << 10 },
        }),
      );
      expect(pieced).toEqual(sequential);
    } finally {
      await pool.close();
    }
  }, 30_000);
});

function outcome(run: StreamRun) {
  return importOutcome(run, STREAMED);
}
