/**
 * The whole payload as one buffer, for formats that cannot be read in a stream (SQLite
 * reads a page anywhere in the file). Chunks are copied once, into a buffer of the exact
 * size, and dropped as they are copied.
 */
export async function collectChunks(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const held: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    held.push(chunk);
    length += chunk.length;
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of held.splice(0)) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}
