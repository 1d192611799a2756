/**
 * Host driver of the WASM protobuf scanner: one instance (one capped linear memory) per
 * artifact, fed chunk by chunk, batches read and drained as they fill.
 */
import { FlameoxError } from "../../domain/errors.ts";
import { parseFailed } from "../json-guard.ts";
import { HostStrings } from "./host-strings.ts";
import { ProtoBatch } from "./proto-batch.ts";
import type { ProtoProgram } from "./proto-program.ts";
import {
  initArgs,
  PROTO_INIT_PARAMS,
  ProtoScanError,
  type ProtoScannerConfig,
  ScanStatus,
} from "./scanner-abi.ts";
import type { ScannerCoreExports } from "./scanner-exports.ts";
import { parserModule, parserModuleSync } from "./wasm-modules.ts";

const INPUT_BYTES = 1 << 20;
export const MAX_PROTO_STRING = 1 << 20;
export const MAX_PROTO_BYTES = 16 << 20;

/** The scanner's buffers, sized to fit its 192 MiB memory maximum together. */
function scannerConfig(maxDepth: number): ProtoScannerConfig {
  return {
    maxDepth,
    inputBytes: INPUT_BYTES,
    stringBytes: MAX_PROTO_STRING,
    captureBytes: MAX_PROTO_BYTES,
    outRecordsCap: 16384,
    // Room for one maximal bytes field plus a batch's ordinary texts.
    textCap: MAX_PROTO_BYTES + (24 << 20),
    // A batch is handed over once it holds this many records or text bytes.
    softRecords: 12000,
    softText: 8 << 20,
    dictSlotsLog2: 18,
    dictArena: 8 << 20,
    newStringsCap: 24 << 20,
  };
}

interface ProtoExports extends ScannerCoreExports<typeof PROTO_INIT_PARAMS> {
  finish(): number;
  restart(): void;
}

export class ProtoScanner {
  readonly strings = new HostStrings();
  private readonly batch: ProtoBatch;
  private readonly mem: Uint8Array;
  private readonly input: number;

  /**
   * The document offset of a scanner offset, for errors (a piece of a document is scanned on its
   * own).
   */
  documentOffset: (scannerOffset: number) => number = (at) => at;

  private constructor(
    private readonly wasm: ProtoExports,
    private readonly format: string,
    private readonly maxDepth: number,
  ) {
    this.batch = new ProtoBatch(this.strings);
    this.mem = new Uint8Array(wasm.memory.buffer);
    this.input = wasm.inputPtr();
  }

  static async open(
    program: ProtoProgram,
    options: { format: string; maxDepth: number },
  ): Promise<ProtoScanner> {
    return ProtoScanner.openWith(await parserModule("proto-scanner"), program, options);
  }

  static openSync(
    program: ProtoProgram,
    options: { format: string; maxDepth: number },
  ): ProtoScanner {
    return ProtoScanner.openWith(parserModuleSync("proto-scanner"), program, options);
  }

  private static openWith(
    module: WebAssembly.Module,
    program: ProtoProgram,
    options: { format: string; maxDepth: number },
  ): ProtoScanner {
    const wasm = new WebAssembly.Instance(module, { env: {} }).exports as unknown as ProtoExports;
    const words = program.compile();
    const at = wasm.reserveProgram(words.byteLength);
    new Int32Array(wasm.memory.buffer, at, words.length).set(words);
    const depth = Math.min(Math.max(1, options.maxDepth), 1024);
    const ok = wasm.init(...initArgs(PROTO_INIT_PARAMS, scannerConfig(depth)));
    if (!ok)
      throw new FlameoxError(
        "INTERNAL_ERROR",
        "The protobuf scanner could not allocate its buffers within its memory maximum",
      );
    return new ProtoScanner(wasm, options.format, depth);
  }

  /** Scans a chunk; `onBatch` sees each batch of completed records. */
  push(chunk: Uint8Array, onBatch: (batch: ProtoBatch) => void): void {
    for (let at = 0; at < chunk.length; at += INPUT_BYTES) {
      const part = chunk.subarray(at, Math.min(chunk.length, at + INPUT_BYTES));
      this.mem.set(part, this.input);
      this.wasm.feed(part.length);
      for (;;) {
        const status = this.wasm.run();
        if (status === ScanStatus.NEED_INPUT) break;
        if (status === ScanStatus.ERROR) this.fail(onBatch);
        this.deliver(onBatch);
      }
    }
  }

  finish(onBatch: (batch: ProtoBatch) => void): void {
    if (this.wasm.finish() === ScanStatus.ERROR) this.fail(onBatch);
    this.deliver(onBatch);
  }

  /**
   * Raises the scan's error after handing over the records completed before it, so the
   * caller's own checks on them (a span limit) come first when they come first in the
   * document, however the records happened to be batched.
   */
  private fail(onBatch: (batch: ProtoBatch) => void): never {
    const error = this.error();
    this.deliver(onBatch);
    throw error;
  }

  /**
   * Scans `bytes` as one whole message (push + finish), then readies the instance for the
   * next one: its string ids stay valid, so one nested scanner serves every Perfetto
   * compressed packet group of a trace.
   */
  scanWhole(bytes: Uint8Array, onBatch: (batch: ProtoBatch) => void): void {
    this.push(bytes, onBatch);
    this.finish(onBatch);
    this.wasm.restart();
  }

  private deliver(onBatch: (batch: ProtoBatch) => void): void {
    const w = this.wasm;
    this.strings.addFrom(this.mem, w.stringsPtr(), w.stringsCount());
    this.batch.reset(
      w.memory.buffer,
      w.recordsPtr(),
      w.recordCount(),
      w.recordStride(),
      w.textAreaPtr(),
    );
    if (this.batch.count > 0) onBatch(this.batch);
    w.drain();
  }

  private error(): FlameoxError {
    const at = this.documentOffset(this.wasm.errorOffset());
    switch (this.wasm.errorCode() as ProtoScanError) {
      case ProtoScanError.END:
        return parseFailed(
          this.format,
          `truncated protobuf (the input ends inside a field or message at byte ${at})`,
        );
      case ProtoScanError.DEPTH:
        return parseFailed(
          this.format,
          `messages nested deeper than ${this.maxDepth} levels at byte ${at}`,
        );
      case ProtoScanError.LENGTH:
        return parseFailed(
          this.format,
          `a field length exceeds its enclosing message at byte ${at}`,
        );
      case ProtoScanError.VARINT:
        return parseFailed(this.format, `an invalid varint at byte ${at}`);
      case ProtoScanError.STRING_LONG:
      case ProtoScanError.CAPTURE_LONG:
      case ProtoScanError.TEXT_FULL:
      case ProtoScanError.STRINGS_FULL:
        return new FlameoxError(
          "ARTIFACT_TOO_LARGE",
          `Cannot import ${this.format}: a field at byte ${at} exceeds the streaming parser's per-value limit`,
        );
      default: // WIRE
        return parseFailed(this.format, `invalid protobuf wire data at byte ${at}`);
    }
  }
}
