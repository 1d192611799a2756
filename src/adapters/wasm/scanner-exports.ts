/**
 * The exports both WASM scanners (JSON and protobuf) share: a program area, an input
 * window, a run loop, and record/string batches read from their capped linear memory.
 */
export interface ScannerCoreExports {
  memory: WebAssembly.Memory;
  reserveProgram(bytes: number): number;
  init(...args: number[]): number;
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
