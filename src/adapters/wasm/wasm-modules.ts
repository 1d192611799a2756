/**
 * The WASM parser modules, loaded from bytes. `with { type: "file" }` embeds each .wasm
 * in `bun build --compile` output and yields its path (on disk when run from source), so
 * the same code works in both. A module is compiled once per process; every parse gets
 * a fresh instance (and so a fresh linear memory, capped by the module's maximum).
 */
import { readFileSync } from "node:fs";
import jsonScannerPath from "../../../parsers-wasm/wasm/json-scanner.wasm" with { type: "file" };
import protoScannerPath from "../../../parsers-wasm/wasm/proto-scanner.wasm" with { type: "file" };

export type ParserModuleName = "json-scanner" | "proto-scanner";

const PATHS: Record<ParserModuleName, string> = {
  "json-scanner": jsonScannerPath,
  "proto-scanner": protoScannerPath,
};
const compiled = new Map<ParserModuleName, WebAssembly.Module>();

/**
 * The module, compiled synchronously (a few ms: the scanners are 6-20 KB). The compile is
 * synchronous on purpose: JSC compiles one module at a time, so a scanner compiled while
 * parquet-wasm's 5 MB module compiles in the background waits for it (~90 ms measured);
 * a worker compiles its scanners first (`compileParserModules`), then starts parquet-wasm's.
 * (The parse worker runs two WASM compiler threads, worker-compiler.ts, for the tier-ups of
 * both modules that follow; the order stays, as it costs nothing.)
 */
export function parserModuleSync(name: ParserModuleName): WebAssembly.Module {
  let module = compiled.get(name);
  if (!module) {
    module = new WebAssembly.Module(readFileSync(PATHS[name]));
    compiled.set(name, module);
  }
  return module;
}

export async function parserModule(name: ParserModuleName): Promise<WebAssembly.Module> {
  return parserModuleSync(name);
}

/** Compiles every parser module now (see parserModuleSync). */
export function compileParserModules(): void {
  for (const name of Object.keys(PATHS) as ParserModuleName[]) parserModuleSync(name);
}
