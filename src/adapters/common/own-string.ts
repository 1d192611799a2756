/**
 * A copy of a string that holds nothing of the text it was cut from. In JavaScriptCore a
 * substring (slice, a regex capture, split) keeps its whole parent alive: a frame name cut
 * from a line of a decoded 1 MiB chunk and kept for the whole import keeps that chunk.
 * Readers that intern names as they meet them keep meeting new ones in real profiles
 * (perf script's offsets and addresses), so without a copy the worker grew by about a
 * chunk for every chunk that introduced a name: a 500 MB perf script peaked at 643 MiB.
 * Call it only for strings that are kept (a new map key or frame), never per line.
 */
export function ownString(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}
