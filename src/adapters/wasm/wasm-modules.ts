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
const compiled = new Map<ParserModuleName, Promise<WebAssembly.Module>>();

export function parserModule(name: ParserModuleName): Promise<WebAssembly.Module> {
  let module = compiled.get(name);
  if (!module) {
    module = Bun.file(PATHS[name])
      .bytes()
      .then((bytes) => new WebAssembly.Module(bytes));
    module.catch(() => compiled.delete(name));
    compiled.set(name, module);
  }
  return module;
}

const compiledSync = new Map<ParserModuleName, WebAssembly.Module>();

/** The same module, compiled synchronously (for adapters' whole-payload `extract`). */
export function parserModuleSync(name: ParserModuleName): WebAssembly.Module {
  let module = compiledSync.get(name);
  if (!module) {
    module = new WebAssembly.Module(readFileSync(PATHS[name]));
    compiledSync.set(name, module);
  }
  return module;
}
