/**
 * Host driver of the WASM protobuf scanner: one instance (one capped linear memory) per
 * artifact, fed chunk by chunk, batches read and drained as they fill.
 */
import { FlameoxError } from "../../domain/errors.ts";
import { parseFailed } from "../json-guard.ts";
import { type KeyValueJsonExports, ProtoBatch } from "./proto-batch.ts";
import type { ProtoProgram } from "./proto-program.ts";
import {
  PROTO_INIT_PARAMS,
  ProtoScanError,
  type ProtoScannerConfig,
  ScanStatus,
} from "./scanner-abi.ts";
import {
  INPUT_BYTES,
  initialiseScanner,
  type ScannerCoreExports,
  ScannerDriver,
} from "./scanner-driver.ts";
import { parserModule, parserModuleSync } from "./wasm-modules.ts";

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

/** Doubles the module has had the host write, in this thread (see `protoImports`). */
let hostDoubles = 0;

/** How many doubles of attributes the host has written for the module so far (for tests). */
export function hostFormattedDoubles(): number {
  return hostDoubles;
}

/**
 * The module's one import: its KeyValue JSON writer (parsers-wasm/assembly/proto/kv-json.ts)
 * has the host write the doubles whose shortest digits it cannot prove itself
 * (shortest-double.ts: ~1% of random doubles, and NaN and the infinities), as the host's own
 * writer does (proto-attributes-json.ts): `String(n)`, quoted when not finite. The attribute text must
 * be byte for byte the same whichever side writes it.
 */
function protoImports(memory: () => WebAssembly.Memory) {
  let u8 = new Uint8Array(0);
  return {
    env: {
      formatDouble(value: number, at: number, room: number): number {
        hostDoubles++;
        const text = Number.isFinite(value) ? String(value) : `"${String(value)}"`;
        if (text.length > room) return -1;
        // The view goes stale (empty) when the memory grows.
        if (u8.byteLength === 0) u8 = new Uint8Array(memory().buffer);
        for (let i = 0; i < text.length; i++) u8[at + i] = text.charCodeAt(i);
        return text.length;
      },
    },
  };
}

interface ProtoExports extends ScannerCoreExports<typeof PROTO_INIT_PARAMS>, KeyValueJsonExports {
  finish(): number;
  restart(): void;
}

export class ProtoScanner extends ScannerDriver<ProtoExports, ProtoBatch> {
  /**
   * The document offset of a scanner offset, for errors (a piece of a document is scanned on its
   * own).
   */
  documentOffset: (scannerOffset: number) => number = (at) => at;

  private constructor(
    wasm: ProtoExports,
    private readonly format: string,
    private readonly maxDepth: number,
  ) {
    super(wasm, (strings) => new ProtoBatch(strings, wasm));
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
    const wasm = new WebAssembly.Instance(
      module,
      protoImports(() => wasm.memory),
    ).exports as unknown as ProtoExports;
    const depth = Math.min(Math.max(1, options.maxDepth), 1024);
    initialiseScanner(wasm, program.compile(), PROTO_INIT_PARAMS, scannerConfig(depth), "protobuf");
    return new ProtoScanner(wasm, options.format, depth);
  }

  finish(onBatch: (batch: ProtoBatch) => void): void {
    if (this.wasm.finish() === ScanStatus.ERROR) this.fail(onBatch);
    this.deliver(onBatch);
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

  protected error(): FlameoxError {
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
          `Cannot import ${this.format}: a field at byte ${at} exceeds the streaming ` +
            `parser's per-value limit`,
        );
      default: // WIRE
        return parseFailed(this.format, `invalid protobuf wire data at byte ${at}`);
    }
  }
}
