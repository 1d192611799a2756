/**
 * A Chrome trace scanned in pieces (cut at proven element boundaries, each piece scanned
 * on its own, then merged in order) must give exactly what one sequential scan gives:
 * every row of every table, the limitations, the summary and the errors. Pieces are
 * scanned here in this thread (the same code a piece thread runs) and, once, on real
 * threads from a file.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PieceTask, StreamExtractInput } from "../../src/adapters/adapter.ts";
import { chromeTraceAdapter } from "../../src/adapters/chrome-trace/adapter.ts";
import {
  scanTracePiece,
  type TracePieceResult,
} from "../../src/adapters/chrome-trace/piece-scan.ts";
import type { EvidenceTableName } from "../../src/domain/evidence-schema.ts";
import { generateChromeTrace } from "../../fixtures/generators/chrome-trace.ts";
import { startPiecePool } from "../../workers/piece-pool.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";
import { importOutcome, memoryFile, settle } from "./piece-harness.ts";
import { runStream, type StreamRun } from "./stream-harness.ts";

const dir = mkdtempSync(join(tmpdir(), "flameox-pieces-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface PieceLog {
  scanned: number;
  unproven: number;
}

/** Pieces of an in-memory document, scanned in this thread as a piece thread would. */
function memoryPieces(
  bytes: Uint8Array,
  pieceBytes: number,
  log: PieceLog,
): NonNullable<StreamExtractInput["pieces"]> {
  const file = memoryFile(bytes);
  const read = file.range;
  return {
    file,
    pieceBytes,
    threads: {
      count: 2,
      run: async (_scanner, task: PieceTask) => {
        const result: TracePieceResult = scanTracePiece({
          prefix: read(task.prefix),
          bytes: read(task.piece),
          offset: task.offset,
          last: task.last,
          limits: task.limits,
        });
        log.scanned++;
        if (result.ok && !result.proven) log.unproven++;
        return result;
      },
      release: async () => {},
    },
  };
}

const STREAMED: EvidenceTableName[] = ["trace_events", "stacks"];

/** Imports `bytes` sequentially and in pieces; returns both outcomes and what the pieces did. */
async function both(bytes: Uint8Array, pieceBytes: number, limits = {}) {
  const log: PieceLog = { scanned: 0, unproven: 0 };
  const sequential = await settle(runStream(chromeTraceAdapter, bytes, { limits }).then(outcome));
  const pieced = await settle(
    runStream(chromeTraceAdapter, bytes, {
      limits,
      pieces: memoryPieces(bytes, pieceBytes, log),
    }).then(outcome),
  );
  return { sequential, pieced, log };
}

const enc = new TextEncoder();

/**
 * A trace with what crosses piece boundaries: B/E pairs, async operations, names given late,
 * profiles, skipped events.
 */
function mixedTrace(
  events: number,
  { objectForm = true, bom = false, crlf = false } = {},
): Uint8Array {
  const out: string[] = [];
  let ts = 1_000_000.5;
  for (let i = 0; i < events; i++) {
    const tid = 1 + (i % 5);
    ts += 3.25;
    switch (i % 17) {
      case 0:
        out.push(
          `{"ph":"B","name":"outer ${i % 7}","cat":"c,at","pid":1,"tid":${tid},"ts":${ts}` +
            `,"tts":${i}}`,
        );
        break;
      case 9:
        out.push(`{"ph":"E","pid":1,"tid":${tid},"ts":${ts + 1},"tts":${i + 3}}`);
        break;
      case 3:
        out.push(
          `{"ph":"b","name":"load","cat":"net","id":"0x${(i % 11).toString(16)}` +
            `","pid":2,"tid":9,"ts":${ts}}`,
        );
        break;
      case 5:
        out.push(
          `{"ph":"e","cat":"net","id":"0x${((i - 2) % 11).toString(16)}` +
            `","pid":2,"tid":9,"ts":${ts + 7}}`,
        );
        break;
      case 7:
        out.push(
          `{"ph":"M","name":"thread_name","pid":1,"tid":${tid},"args":{"name":"worker ${i}"}}`,
        );
        break;
      case 11:
        out.push(`{"ph":"i","name":"mark","pid":1,"tid":${tid},"s":"t"}`);
        break;
      case 13:
        out.push(`{"ph":"Q","name":"odd phase","pid":"1","tid":${tid},"ts":${ts}}`);
        break;
      default:
        out.push(
          `{"ph":"X","name":"work ${i % 23}","cat":"gen","pid":1,"tid":${tid},"ts":${ts}` +
            `,"dur":${(i % 9) + 0.125},"tdur":1,"args":{"i":${i},"s":"é\\u00e9 ${i}"}}`,
        );
    }
  }
  const sep = crlf ? ",\r\n" : ",\n";
  const body = objectForm
    ? `{"displayTimeUnit":"ms","metadata":{"source":"test"},"traceEvents":[${out.join(sep)}` +
      `],"otherData":{"v":1}}`
    : `[${out.join(sep)}]`;
  return enc.encode((bom ? "\ufeff" : "") + body);
}

describe("a Chrome trace scanned in pieces", () => {
  test(
    "gives the rows, limitations and summary of one sequential scan (object form, array form, " +
      "BOM, CRLF)",
    async () => {
      for (const options of [{}, { objectForm: false }, { bom: true, crlf: true }]) {
        const bytes = mixedTrace(3000, options);
        const { sequential, pieced, log } = await both(bytes, 4096);
        expect("ok" in sequential).toBe(true);
        expect(pieced).toEqual(sequential);
        expect(log.scanned).toBeGreaterThan(20);
        expect(log.unproven).toBe(0);
      }
    },
  );

  test("gives the rows of a sequential scan for a generated trace and every corpus Chrome " +
    "trace", async () => {
    const path = join(dir, "generated.json");
    await generateChromeTrace(path, 1 << 20);
    const inputs: [string, Uint8Array][] = [["generated", readFileSync(path)]];
    for (const file of corpusFiles("chrome-trace"))
      inputs.push([file.name, loadPayload(file.path)]);
    for (const [name, bytes] of inputs) {
      const { sequential, pieced, log } = await both(
        bytes,
        Math.max(64, Math.floor(bytes.length / 7)),
      );
      expect({ name, equal: Bun.deepEquals(pieced, sequential) }).toEqual({ name, equal: true });
      // Files of a few events have nowhere to cut.
      if (bytes.length > 4096)
        expect({ name, pieces: log.scanned > 1 }).toEqual({ name, pieces: true });
    }
  }, 60_000);

  test(
    "a cut inside a string or a nested array is disproven and the trace is scanned " +
      "sequentially",
    async () => {
      const events = Array.from({ length: 400 }, (_, i) =>
        i % 2 === 0
          ? `{"ph":"X","name":"n","pid":1,"tid":1,"ts":${i},"dur":1,"args":{"text":"},{ ` +
            `},{","list":[{"a":1},{"b":2}]}}`
          : `{"ph":"X","name":"m","pid":1,"tid":2,"ts":${i},"dur":1}`,
      );
      // Legacy traces put other arrays of objects after traceEvents; cuts there are disproven too.
      const samples = Array.from(
        { length: 300 },
        (_, i) => `{"cpu":0,"tid":1,"ts":${i},"name":"s","sf":1,"weight":1}`,
      );
      const bytes = enc.encode(
        `{"traceEvents":[${events.join(",")}],"samples":[${samples.join(",")}]}`,
      );
      const { sequential, pieced, log } = await both(bytes, 1024);
      expect("ok" in sequential).toBe(true);
      expect(pieced).toEqual(sequential);
      expect(log.unproven).toBeGreaterThan(0);
    },
  );

  test(
    "raises the error a sequential scan raises, at the same offset, and the event limit first " +
      "when it comes first",
    async () => {
      const good = mixedTrace(2000, { objectForm: false });
      // `"ph":"X"` becomes `"ph" "X"` at ~70%: the scanner stops at the space's next byte.
      const at = Buffer.from(good).indexOf('"ph"', Math.floor(good.length * 0.7));
      const broken = good.slice();
      broken[at + 4] = 0x20;
      const invalid = await both(broken, 2048);
      expect("error" in invalid.sequential && invalid.sequential.error).toContain(
        `at byte ${at + 5}`,
      );
      expect(invalid.pieced).toEqual(invalid.sequential);
      const limited = await both(good, 2048, { maxEvents: 1200 });
      expect("error" in limited.sequential && limited.sequential.error).toContain(
        "ARTIFACT_TOO_LARGE",
      );
      expect(limited.pieced).toEqual(limited.sequential);
      // Both: the limit is crossed before the invalid byte, so both scans raise the limit.
      const first = await both(broken, 2048, { maxEvents: 1200 });
      expect("error" in first.sequential && first.sequential.error).toContain("ARTIFACT_TOO_LARGE");
      expect(first.pieced).toEqual(first.sequential);
    },
  );

  test("closes a cut-off array in its last piece as a sequential scan does", async () => {
    const text = new TextDecoder().decode(mixedTrace(1500, { objectForm: false }));
    const cut = enc.encode(text.slice(0, text.lastIndexOf("}") + 1));
    const { sequential, pieced, log } = await both(cut, 2048);
    expect("ok" in sequential && JSON.stringify(sequential.ok.rest.limitations)).toContain(
      "truncated",
    );
    expect(pieced).toEqual(sequential);
    expect(log.scanned).toBeGreaterThan(5);
  });

  test("pieces scanned on real threads from a file give the rows of a sequential " +
    "scan", async () => {
    const bytes = mixedTrace(6000);
    const path = join(dir, "threads.json");
    writeFileSync(path, bytes);
    const pool = startPiecePool(path, bytes.length, 2);
    try {
      expect(pool.pieces).toBeDefined();
      const sequential = outcome(await runStream(chromeTraceAdapter, bytes));
      const pieced = outcome(
        await runStream(chromeTraceAdapter, bytes, {
          pieces: { ...pool.pieces!, pieceBytes: 32 << 10 },
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
