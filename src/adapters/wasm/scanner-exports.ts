/**
 * The exports both WASM scanners (JSON and protobuf) share: a program area, an input
 * window, a run loop, and record/string batches read from their capped linear memory.
 */
import type { InitArgs } from "./scanner-abi.ts";

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
