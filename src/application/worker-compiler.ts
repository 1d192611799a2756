/**
 * How JavaScriptCore compiles WebAssembly in the parse worker: on how many threads, and when to its
 * optimizing tier. Set through the worker's environment (JSC reads `BUN_JSC_*` options once, at
 * start-up).
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

/**
 * How hot a WebAssembly function gets (JSC's tier-up counter) before JSC compiles it with OMG, its
 * optimizing tier, instead of running it as BBQ, its quick one: 4x JSC's default of 50,000.
 *
 * At the default, parquet-wasm's first parts of an import ran far slower than later ones, and not
 * for want of compiled code: with OMG off altogether they ran 2x faster. Encoding the 2M-sample
 * cpuprofile's four tables in a fresh process, compiled on two threads (2 runs each), took
 * 135-155 ms at the default (~27 ms warm), 90-100 ms at 200,000, 500,000 and 2,000,000 alike. The
 * scanners' hot loops still reach OMG early: a 200 MB Chrome trace scanned at the same rate
 * (~400 MB/s warm), as did the profile (~45 ms), where OMG off slowed the trace's scan to
 * ~230 MB/s. Whole imports,
 * alternating pairs with the setting passed to the worker: 2M-sample cpuprofile 566 against 592 ms
 * (its encode 73 against 95 ms; 8 pairs), Chrome 200 MB 4.03 against 4.09 s (3), OTLP 100 MB 2.60
 * against 2.67 s (4), real Perfetto 100 MB 6.07 against 6.10 s (3); the 1.3 MB profile moved with
 * the machine either way (337 against 359 ms, pairs split both ways).
 */
export const OMG_THRESHOLD = 200_000;

export function workerCompilerEnv(): Record<string, string> {
  return {
    BUN_JSC_numberOfWasmCompilerThreads: String(WASM_COMPILER_THREADS),
    BUN_JSC_thresholdForOMGOptimizeAfterWarmUp: String(OMG_THRESHOLD),
  };
}
