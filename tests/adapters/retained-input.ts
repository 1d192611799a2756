/**
 * How much of its streamed input a reader keeps: chunks are fed to `extractStream` and,
 * once the last one has been taken (the reader still holds its state), a full collection
 * measures the memory outside the JS heap's cells (string and array buffers). A reader
 * that keeps substrings of its lines keeps whole decoded chunks alive.
 */
import { heapStats } from "bun:jsc";
import { DEFAULT_ADAPTER_LIMITS, type ProducerAdapter } from "../../src/adapters/adapter.ts";

export async function retainedAfterInput(
  adapter: ProducerAdapter,
  chunks: Uint8Array[],
): Promise<{ inputBytes: number; retainedBytes: number }> {
  let before = 0;
  let after = 0;
  async function* feed(): AsyncGenerator<Uint8Array> {
    Bun.gc(true);
    before = heapStats().extraMemorySize;
    for (const c of chunks) yield c;
    Bun.gc(true);
    after = heapStats().extraMemorySize;
  }
  await adapter.extractStream!({
    chunks: feed(),
    displayName: "retention",
    limits: DEFAULT_ADAPTER_LIMITS,
    sink: { writeBatch: async () => {} },
  });
  return { inputBytes: chunks.reduce((n, c) => n + c.length, 0), retainedBytes: after - before };
}

/** `count` chunks of about 1 MiB: each a new line made by `fresh(i)`, then `filler` repeated. */
export function chunksWithNewNames(
  count: number,
  fresh: (i: number) => string,
  filler: string,
): Uint8Array[] {
  const body = filler.repeat(Math.ceil((1 << 20) / filler.length));
  return Array.from({ length: count }, (_, i) => new TextEncoder().encode(fresh(i) + body));
}
