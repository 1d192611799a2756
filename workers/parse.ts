/**
 * Parse worker entry point (see parse-worker.ts). It starts compiling the WASM modules
 * before it loads the parse path: JSC compiles parquet-wasm's 5 MB module off the main
 * thread, so the compile runs while the parse path's modules load and the chosen format
 * is detected, loaded and scanned, instead of after them, where a small import's first
 * Parquet part waited for it. For a 1.3 MB cpuprofile the compile ends ~200-265 ms into
 * the worker and the first part wants it at ~240-310 ms: little margin is left. The
 * scanners compile first, synchronously: JSC compiles one module at a time
 * (wasm-modules.ts).
 */
import { compileParserModules } from "../src/adapters/wasm/wasm-modules.ts";
import { compiledParquetModule } from "../src/storage/parquet-module.ts";

/** `source`: the request's file, or "-": it comes on stdin (see parse-worker.ts). */
export async function runParseWorker(source: string): Promise<number> {
  compileParserModules();
  // A failure surfaces where the module is awaited (the first part), as before.
  compiledParquetModule().catch(() => {});
  const { parseWorker } = await import("./parse-worker.ts");
  // Bun's clock starts with the process: this is the worker's start-up (runtime and modules).
  return parseWorker(source, performance.now());
}

if (import.meta.main) {
  const source = process.argv[2];
  if (!source) {
    console.error("usage: parse.ts REQUEST.json | parse.ts - (the request on stdin)");
    process.exit(2);
  }
  process.exit(await runParseWorker(source));
}
