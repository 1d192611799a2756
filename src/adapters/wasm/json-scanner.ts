/**
 * Host driver of the WASM JSON scanner: one instance (one capped linear memory) per
 * document. Chunks of any size are copied into the scanner's input window; whenever a
 * batch of records is ready the callback reads it, and it is drained before scanning
 * resumes. Memory use is therefore bounded by the module's maximum, not by the input.
 */
import { FlameoxError } from "../../domain/errors.ts";
import { parseFailed } from "../json-guard.ts";
import { ByteOrderMarkSkip, skipByteOrderMark } from "./byte-order-mark.ts";
import { JsonBatch } from "./json-batch.ts";
import type { JsonProgram } from "./json-program.ts";
import {
  JSON_INIT_PARAMS,
  JsonScanError,
  type JsonScannerConfig,
  SCAN_REPAIRED,
  ScanStatus,
} from "./scanner-abi.ts";
import {
  INPUT_BYTES,
  initialiseScanner,
  type ScannerCoreExports,
  ScannerDriver,
} from "./scanner-driver.ts";
import { parserModule, parserModuleSync } from "./wasm-modules.ts";

/** The largest single JSON value captured as text (e.g. one event's args). */
export const MAX_CAPTURE_BYTES = 32 << 20;
/** The longest string interned as a name or value. */
export const MAX_STRING_BYTES = 1 << 20;

/** The scanner's buffers, sized to fit its 192 MiB memory maximum together. */
function scannerConfig(maxDepth: number, truncateAt: number): JsonScannerConfig {
  return {
    maxDepth,
    inputBytes: INPUT_BYTES,
    stringBytes: MAX_STRING_BYTES,
    captureBytes: MAX_CAPTURE_BYTES,
    outRecordsCap: 16384,
    // Room for one maximal capture plus a batch's ordinary texts.
    textCap: MAX_CAPTURE_BYTES + (40 << 20),
    // A batch is handed over once it holds this many records or text bytes.
    softRecords: 16000,
    softText: 8 << 20,
    dictSlotsLog2: 18,
    dictArena: 8 << 20,
    newStringsCap: 24 << 20,
    truncateAt,
  };
}

interface ScannerExports extends ScannerCoreExports<typeof JSON_INIT_PARAMS> {
  finish(repair: number): number;
  allowValueSequence(on: number): void;
  textAreaBytes(): number;
  stringsBytes(): number;
  depth(): number;
  betweenElements(): number;
  containerNode(): number;
  numberRunsPtr(): number;
  numberRunCount(): number;
  numberRunValuesPtr(): number;
}

/**
 * Where all input so far ended (see `betweenElements` in parsers-wasm/assembly/json/scanner.ts).
 */
export interface ScanPosition {
  depth: number;
  /** JsonBetween: not between array elements, before the first, or after one. */
  between: number;
  /** Program node of the innermost container (-1 at the top level). */
  node: number;
}

export interface JsonScanOptions {
  /** Format name used in error messages (`chrome trace`, `cpuprofile`…). */
  format: string;
  maxDepth: number;
  /** JSON slot texts longer than this are cut (unless their record is special). */
  truncateJsonAt: number;
  /** Accept whitespace-separated top-level values (JSON Lines); each closes its root record. */
  valueSequence?: boolean;
  /**
   * The document offset of a scanner offset, for errors (a piece of a document is scanned after a
   * copy of its start).
   */
  documentOffset?: (scannerOffset: number) => number;
}

export class JsonScanner extends ScannerDriver<ScannerExports, JsonBatch> {
  private constructor(
    wasm: ScannerExports,
    private readonly options: JsonScanOptions,
  ) {
    super(wasm, (strings) => new JsonBatch(strings));
  }

  static async open(program: JsonProgram, options: JsonScanOptions): Promise<JsonScanner> {
    return JsonScanner.openWith(await parserModule("json-scanner"), program, options);
  }

  /** The same scanner, compiled synchronously (piece threads, nested documents scanned whole). */
  static openSync(program: JsonProgram, options: JsonScanOptions): JsonScanner {
    return JsonScanner.openWith(parserModuleSync("json-scanner"), program, options);
  }

  /**
   * A scanner for a new document on the linear memory of one that is done with its own
   * (which must not be used again): a thread that scans many pieces keeps one memory
   * instead of leaving one of up to 192 MiB per piece to the collector.
   */
  static reopenSync(
    done: JsonScanner | null,
    program: JsonProgram,
    options: JsonScanOptions,
  ): JsonScanner {
    return done === null
      ? JsonScanner.openSync(program, options)
      : JsonScanner.initialise(done.wasm, program, options);
  }

  private static openWith(
    module: WebAssembly.Module,
    program: JsonProgram,
    options: JsonScanOptions,
  ): JsonScanner {
    let memory: WebAssembly.Memory | null = null;
    const env = {
      // Numbers outside the exact fast path: the host's own parser gives JSON.parse's double.
      parseNumber: (ptr: number, len: number) =>
        Number(new TextDecoder().decode(new Uint8Array(memory!.buffer, ptr, len))),
    };
    const instance = new WebAssembly.Instance(module, { env });
    const wasm = instance.exports as unknown as ScannerExports;
    memory = wasm.memory;
    return JsonScanner.initialise(wasm, program, options);
  }

  /** Loads the program and sets up every buffer anew (see `initialiseScanner`). */
  private static initialise(
    wasm: ScannerExports,
    program: JsonProgram,
    options: JsonScanOptions,
  ): JsonScanner {
    const depth = Math.min(Math.max(1, options.maxDepth), 4096);
    const config = scannerConfig(depth, options.truncateJsonAt);
    initialiseScanner(wasm, program.compile(), JSON_INIT_PARAMS, config, "JSON");
    wasm.allowValueSequence(options.valueSequence ? 1 : 0);
    return new JsonScanner(wasm, options);
  }

  /** Scans a whole in-memory document (a leading BOM dropped) and ends it. */
  scanWhole(
    bytes: Uint8Array,
    onBatch: (batch: JsonBatch) => void,
    repairArray = false,
  ): { repaired: boolean } {
    const bom = new ByteOrderMarkSkip();
    this.push(bom.strip(bytes), onBatch);
    this.push(bom.rest(), onBatch);
    return this.finish(repairArray, onBatch);
  }

  /** Scans a document arriving in chunks (a leading BOM dropped) and ends it. */
  async scanChunks(
    chunks: AsyncIterable<Uint8Array>,
    onBatch: (batch: JsonBatch) => void,
    repairArray = false,
  ): Promise<{ repaired: boolean }> {
    for await (const chunk of skipByteOrderMark(chunks)) this.push(chunk, onBatch);
    return this.finish(repairArray, onBatch);
  }

  /**
   * Hands over the records completed so far without waiting for a full batch (a batch is
   * otherwise delivered only when full or at `finish`): a piece of a document ends here.
   */
  flush(onBatch: (batch: JsonBatch) => void): void {
    this.deliver(onBatch);
  }

  /** Where the input pushed so far ended. */
  position(): ScanPosition {
    return {
      depth: this.wasm.depth(),
      between: this.wasm.betweenElements(),
      node: this.wasm.containerNode(),
    };
  }

  /** Ends the document; returns whether a cut-off top-level array was closed. */
  finish(repairArray: boolean, onBatch: (batch: JsonBatch) => void): { repaired: boolean } {
    const status = this.wasm.finish(repairArray ? 1 : 0);
    if (status === ScanStatus.ERROR) this.fail(onBatch);
    this.deliver(onBatch);
    return { repaired: status === ScanStatus.DONE + SCAN_REPAIRED };
  }

  protected override moreOutput(): boolean {
    const w = this.wasm;
    this.batch.resetRuns(
      w.memory.buffer,
      w.numberRunsPtr(),
      w.numberRunCount(),
      w.numberRunValuesPtr(),
    );
    return this.batch.runs > 0;
  }

  protected override textBytes(): number {
    return this.wasm.textAreaBytes();
  }

  protected error(): FlameoxError {
    const code = this.wasm.errorCode() as JsonScanError;
    const at = this.options.documentOffset
      ? this.options.documentOffset(this.wasm.errorOffset())
      : this.wasm.errorOffset();
    const format = this.options.format;
    switch (code) {
      case JsonScanError.DEPTH:
        return parseFailed(
          format,
          `nesting deeper than ${this.options.maxDepth} levels at byte ${at}`,
        );
      case JsonScanError.STRING_LONG:
        return tooLargeValue(
          format,
          `a string longer than ${MAX_STRING_BYTES} bytes at byte ${at}`,
        );
      case JsonScanError.CAPTURE_LONG:
      case JsonScanError.TEXT_FULL:
        return tooLargeValue(
          format,
          `a JSON value longer than ${MAX_CAPTURE_BYTES} bytes at byte ${at}`,
        );
      case JsonScanError.STRINGS_FULL:
        return tooLargeValue(format, `too many distinct strings in one record at byte ${at}`);
      case JsonScanError.EMPTY:
        return parseFailed(format, "the payload is empty");
      case JsonScanError.END:
        return parseFailed(format, `invalid JSON (unexpected end of input at byte ${at})`);
      case JsonScanError.CONTROL:
        return parseFailed(format, `invalid JSON (control character in a string at byte ${at})`);
      case JsonScanError.ESCAPE:
        return parseFailed(format, `invalid JSON (invalid escape in a string at byte ${at})`);
      case JsonScanError.NUMBER_LONG:
        return parseFailed(format, `invalid JSON (number literal too long at byte ${at})`);
      default: // UNEXPECTED, RECORDS_DEEP
        return parseFailed(format, `invalid JSON (unexpected character at byte ${at})`);
    }
  }
}

function tooLargeValue(format: string, what: string): FlameoxError {
  return new FlameoxError("ARTIFACT_TOO_LARGE", `Cannot import ${format}: ${what}`, {
    remediation: [
      "The value exceeds the streaming parser's per-value limit; record a smaller artifact",
    ],
  });
}
