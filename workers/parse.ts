/**
 * Parse worker entry point (see parse-worker.ts). It starts compiling the WASM modules
 * before it loads the parse path: JSC compiles parquet-wasm's 5 MB module off the main
 * thread, so the compile (100-160 ms here) runs while the adapters' modules load
 * (~100-150 ms) instead of after them, where a small import's first Parquet part waited
 * for it. The scanners compile first, synchronously: JSC compiles one module at a time
 * (wasm-modules.ts).
 */
import { compileParserModules } from "../src/adapters/wasm/wasm-modules.ts";
import { compiledParquetModule } from "../src/storage/parquet-module.ts";

export async function runParseWorker(requestPath: string): Promise<number> {
  compileParserModules();
  // A failure surfaces where the module is awaited (the first part), as before.
  compiledParquetModule().catch(() => {});
  const { parseWorker } = await import("./parse-worker.ts");
  // Bun's clock starts with the process: this is the worker's start-up (runtime and modules).
  return parseWorker(requestPath, performance.now());
}

if (import.meta.main) {
  const requestPath = process.argv[2];
  if (!requestPath) {
    console.error("usage: parse.ts REQUEST.json");
    process.exit(2);
  }
  process.exit(await runParseWorker(requestPath));
}
