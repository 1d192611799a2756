/**
 * What the JSON and protobuf scanners share: the same core of exports (a program area, an
 * input window, a run loop, and record/string batches read from their capped linear memory),
 * and so one host loop that loads a program, feeds chunks through the window and hands the
 * batches over. The two drivers differ in their batches and their error messages.
 */
import { FlameoxError } from "../../domain/errors.ts";
import { HostStrings } from "./host-strings.ts";
import { type InitArgs, initArgs, type ScannerConfig, ScanStatus } from "./scanner-abi.ts";

export interface ScannerCoreExports<InitParams extends readonly string[]> {
  memory: WebAssembly.Memory;
  reserveProgram(bytes: number): number;
  /**
   * 1 when every buffer fits the memory maximum; the arguments come from `initArgs`
   * (scanner-abi.ts).
   */
  init(...args: InitArgs<InitParams>): number;
  inputPtr(): number;
  feed(len: number): void;
  run(): number;
  drain(): void;
  recordsPtr(): number;
  recordCount(): number;
  recordStride(): number;
  textAreaPtr(): number;
  stringsPtr(): number;
  stringsCount(): number;
  errorCode(): number;
  errorOffset(): number;
}

/** Bytes of the input window: a chunk is fed in parts of at most this size. */
export const INPUT_BYTES = 1 << 20;

/**
 * Loads a compiled program and sets up every buffer anew (the module's allocator starts over at
 * `reserveProgram`); `scanner` names the module in the error when they do not fit.
 */
export function initialiseScanner<P extends readonly string[]>(
  wasm: ScannerCoreExports<P>,
  words: Int32Array,
  params: P,
  config: ScannerConfig<P>,
  scanner: string,
): void {
  const at = wasm.reserveProgram(words.byteLength);
  new Int32Array(wasm.memory.buffer, at, words.length).set(words);
  if (!wasm.init(...initArgs(params, config)))
    throw new FlameoxError(
      "INTERNAL_ERROR",
      `The ${scanner} scanner could not allocate its buffers within its memory maximum`,
    );
}

export abstract class ScannerDriver<
  W extends ScannerCoreExports<readonly string[]>,
  // A batch view, re-pointed at the module's output (memory, then its pointers and sizes).
  B extends { readonly count: number; reset(memory: ArrayBuffer, ...at: number[]): void },
> {
  readonly strings = new HostStrings();
  protected readonly batch: B;
  private readonly mem: Uint8Array;
  private readonly input: number;

  protected constructor(
    protected readonly wasm: W,
    batchOf: (strings: HostStrings) => B,
  ) {
    this.batch = batchOf(this.strings);
    this.mem = new Uint8Array(wasm.memory.buffer);
    this.input = wasm.inputPtr();
  }

  /** Scans a chunk; `onBatch` sees each batch of completed records. */
  push(chunk: Uint8Array, onBatch: (batch: B) => void): void {
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

  /**
   * Raises the scan's error after handing over the records completed before it, so the
   * caller's own checks on them (an event or span limit) come first when they come first in
   * the document, however the records happened to be batched.
   */
  protected fail(onBatch: (batch: B) => void): never {
    const error = this.error();
    this.deliver(onBatch);
    throw error;
  }

  protected deliver(onBatch: (batch: B) => void): void {
    const w = this.wasm;
    this.strings.addFrom(this.mem, w.stringsPtr(), w.stringsCount());
    this.batch.reset(
      w.memory.buffer,
      w.recordsPtr(),
      w.recordCount(),
      w.recordStride(),
      w.textAreaPtr(),
      this.textBytes(),
    );
    const more = this.moreOutput();
    if (this.batch.count > 0 || more) onBatch(this.batch);
    w.drain();
  }

  /**
   * Re-points what the batch reads beyond records and texts; whether it holds any (the batch
   * is handed over even without records then).
   */
  protected moreOutput(): boolean {
    return false;
  }

  /** Bytes of the batch's text area, where the batch reads them as one view (0 otherwise). */
  protected textBytes(): number {
    return 0;
  }

  /** The error the module reports after ERROR, in the format's words. */
  protected abstract error(): FlameoxError;
}
