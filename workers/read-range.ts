/**
 * One byte range of the payload file, read whole: what a piece thread scans, and the
 * parser's reads of the text around a cut. Its own module so that the parser's side does
 * not load the thread's entry (and with it tinypool) to read a range.
 */
import { closeSync, openSync, readSync } from "node:fs";

export function readRange(path: string, [start, end]: [number, number]): Uint8Array {
  const bytes = new Uint8Array(end - start);
  const fd = openSync(path, "r");
  try {
    for (let done = 0; done < bytes.length; ) {
      const read = readSync(fd, bytes, done, bytes.length - done, start + done);
      if (read === 0) throw new Error(`The payload file ended at ${start + done} of ${end}`);
      done += read;
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}
