/**
 * Starts compiling the Parquet decoder (5 MB of WASM, compiled off the main thread) for a
 * long-lived process, so its first analysis does not wait for it. Loads nothing else.
 */
import { compiledParquetModule } from "../storage/parquet-module.ts";

export function warmDecoder(): void {
  compiledParquetModule().catch(() => {
    // The first call that needs the decoder reports the failure.
  });
}
