/**
 * Drops a leading UTF-8 byte order mark, as TextDecoder does before JSON.parse sees the
 * text, so the streaming scanners accept exactly the payloads JSON.parse accepts.
 */
const BOM = [0xef, 0xbb, 0xbf];

/** The same rule for a caller that pushes chunks itself: `strip` each chunk, then `rest`. */
export class ByteOrderMarkSkip {
  private head = new Uint8Array(0);
  private decided = false;

  /** The bytes of `chunk` to scan now (empty while a split BOM is still possible). */
  strip(chunk: Uint8Array): Uint8Array {
    if (this.decided) return chunk;
    const joined = new Uint8Array(this.head.length + chunk.length);
    joined.set(this.head);
    joined.set(chunk, this.head.length);
    if (
      joined.length < BOM.length &&
      BOM.slice(0, joined.length).every((b, i) => joined[i] === b)
    ) {
      this.head = joined; // could still be a BOM: wait for more bytes
      return new Uint8Array(0);
    }
    this.decided = true;
    return BOM.every((b, i) => joined[i] === b) ? joined.subarray(BOM.length) : joined;
  }

  /** Bytes held back at the end of input (a payload shorter than a BOM). */
  rest(): Uint8Array {
    return this.decided ? new Uint8Array(0) : this.head;
  }
}

export async function* skipByteOrderMark(
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  const skip = new ByteOrderMarkSkip();
  for await (const chunk of chunks) {
    const bytes = skip.strip(chunk);
    if (bytes.length > 0) yield bytes;
  }
  const rest = skip.rest();
  if (rest.length > 0) yield rest;
}
