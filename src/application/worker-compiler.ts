/**
 * How many threads JavaScriptCore compiles WebAssembly on in the parse worker, set through its
 * environment (JSC reads `BUN_JSC_*` options once, at start-up).
 *
 * The worker runs two WASM modules at once early on: the scanner, which starts in JSC's WASM
 * interpreter and is compiled to faster tiers as it runs hot, and parquet-wasm (5 MB), whose
 * compile starts with the worker (workers/parse.ts) and whose first Parquet parts run in the
 * interpreter too. JSC's default is one WASM compiler thread for both, so the scanner's tier-ups
 * queue behind parquet-wasm's compile, and parquet-wasm's behind the scanner's, while both run
 * interpreted. With two, on this 2-core machine, a 2M-sample cpuprofile's (19 MB) Parquet parts
 * encoded in ~130 against ~230 ms and its worker used ~200 ms less CPU (8 alternating rounds; end
 * to end, median 919 against 1,080 ms); in bench/import-bench.ts (7 rounds, --baseline-cli) the
 * parts took 142 against 189 ms and the import 839 against 862 ms. A 200 MB Chrome trace
 * (3 rounds) and a 100 MB real Perfetto trace (6 rounds) showed no change beyond the noise: a
 * large import's code is compiled early in it either way.
 */
export const WASM_COMPILER_THREADS = 2;

export function workerCompilerEnv(): Record<string, string> {
  return { BUN_JSC_numberOfWasmCompilerThreads: String(WASM_COMPILER_THREADS) };
}
