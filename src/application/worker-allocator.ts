/**
 * How the parse worker's allocator is set, through its environment (read once at start-up):
 * for a small payload, transparent huge pages.
 *
 * Bun allocates ArrayBuffers' contents with mimalloc, which by default keeps transparent huge
 * pages off (allow_thp 0) and maps 4 KiB pages. Each is a page fault when first written: on a
 * VM whose kernel hands freed pages back to the host, 3-14 µs a page (a fresh 32 MB typed array
 * took 85-120 ms to fill, and 1.3 ms to fill again). With huge pages allowed and asked for
 * (madvise), and purges kept to whole 2 MiB pages (a partial one splits the page), the same
 * fill took 2-5 ms.
 *
 * A small import's worker is mostly fresh memory: its start-up, its scanner's and encoder's
 * first buffers, a profile's sample columns. Same-run A/B (bench/import-bench.ts), medians:
 * - a 1.3 MB cpuprofile, end to end: 335 against 536 ms (scan and extraction 59 against 182);
 * - a 2M-sample cpuprofile (19 MB): 22.8 against 16.1 MB/s;
 * - a 50 MB Perfetto trace: 4.3-5.8 against 4.6-5.8 s.
 * A large import reuses its memory; there huge pages added 11-65 MiB to the worker's peak and
 * nothing to its rate (200 MB: real Perfetto 15.8 against 16.1 MB/s, OTLP 39.3 against 37.7), and
 * with purges of any size (pages split) the 2 GB real Perfetto trace took 151 against 134 s and
 * peaked at 491 MiB against 439: the 512 MiB bound is not put at risk for that.
 */
const HUGE_PAGES_MAX_PAYLOAD_BYTES = 64 << 20;
/**
 * The worker's memory budget below which huge pages stay off: they round its RSS up (the 2M-sample
 * cpuprofile's worker peaked at 285 against 225 MiB, a 50 MB Perfetto trace's at ~357 against
 * ~310), which a budget of a few hundred MiB may not have room for.
 */
const HUGE_PAGES_MIN_BUDGET_BYTES = 1 << 30;

export function workerAllocatorEnv(
  payloadBytes: number,
  memoryBudgetBytes: number,
): Record<string, string> {
  if (
    payloadBytes > HUGE_PAGES_MAX_PAYLOAD_BYTES ||
    memoryBudgetBytes < HUGE_PAGES_MIN_BUDGET_BYTES
  )
    return {};
  return {
    MIMALLOC_ALLOW_THP: "1",
    MIMALLOC_ALLOW_LARGE_OS_PAGES: "1",
    MIMALLOC_MINIMAL_PURGE_SIZE: "2MiB",
  };
}
