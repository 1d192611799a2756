/**
 * The compiled parquet-wasm module, in a module of its own that loads nothing else, so a
 * process can start the (asynchronous, off-thread) compile at its very start — the MCP
 * server does, before it answers `initialize` — without paying for apache-arrow and the
 * encoder's JavaScript until a call needs them.
 */
// `type: "file"` embeds the .wasm in `bun build --compile` output and yields its path.
import parquetWasmPath from "parquet-wasm/esm/parquet_wasm_bg.wasm" with { type: "file" };

let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * parquet-wasm's 5 MB module, compiled once per process. Compiling is most of its set-up
 * cost, so a thread that encodes parts is handed this compiled module (a
 * WebAssembly.Module crosses postMessage without being compiled again) rather than the
 * bytes; the compile is asynchronous, so a parse worker can start it and keep scanning.
 */
export function compiledParquetModule(): Promise<WebAssembly.Module> {
  compiled ??= Bun.file(parquetWasmPath)
    .bytes()
    .then((bytes) => WebAssembly.compile(bytes))
    .catch((error: unknown) => {
      compiled = undefined;
      throw error;
    });
  return compiled;
}
