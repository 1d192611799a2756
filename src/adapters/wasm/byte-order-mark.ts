/**
 * Drops a leading UTF-8 byte order mark, as TextDecoder does before JSON.parse sees the
 * text, so the streaming scanners accept exactly the payloads the whole-file path accepts.
 */
const BOM = [0xef, 0xbb, 0xbf];

export async function* skipByteOrderMark(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let head = new Uint8Array(0);
  let decided = false;
  for await (const chunk of chunks) {
    if (decided) {
      yield chunk;
      continue;
    }
    const joined = new Uint8Array(head.length + chunk.length);
    joined.set(head);
    joined.set(chunk, head.length);
    if (joined.length < BOM.length && BOM.slice(0, joined.length).every((b, i) => joined[i] === b)) {
      head = joined; // could still be a BOM: wait for more bytes
      continue;
    }
    decided = true;
    yield BOM.every((b, i) => joined[i] === b) ? joined.subarray(BOM.length) : joined;
  }
  if (!decided && head.length > 0) yield head;
}
