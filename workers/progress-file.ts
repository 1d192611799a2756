/**
 * How far the parse worker has read its payload, for a progress display in the process
 * that waits for it. The worker overwrites one small file, `progress` in its output
 * directory, with the count of stored bytes consumed, at most every 100 ms; the parent
 * polls it. A file rather than a pipe: the worker's stdout and stderr belong to the
 * broker's bounded capture, and a missed or torn read only delays the next figure.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PARSE_PROGRESS_FILE as PROGRESS_FILE } from "../src/domain/parse-request.ts";

const INTERVAL_MS = 100;

/** `total` is the payload's stored size: reaching it is written at once, whatever the interval. */
export function progressWriter(
  outputDir: string,
  total: number,
): { add: (bytes: number) => void; flush: () => void } {
  const path = join(outputDir, PROGRESS_FILE);
  let consumed = 0;
  let last = 0;
  const flush = () => {
    last = performance.now();
    try {
      writeFileSync(path, String(consumed));
    } catch {
      // Progress is advisory; the parse goes on without it.
    }
  };
  return {
    add(bytes) {
      consumed += bytes;
      if (consumed >= total || performance.now() - last >= INTERVAL_MS) flush();
    },
    flush,
  };
}
