/**
 * The OpenTelemetry Collector's file exporter with `format: proto` writes each
 * ExportTraceServiceRequest after its length as a 4-byte big-endian integer. Protobuf
 * messages of one type concatenate into one message whose repeated fields append, so the
 * bodies without their prefixes are a single request holding every ResourceSpans in file
 * order, which the usual decoders then read. A raw request never starts like a prefix:
 * its first byte is a tag, and tags below 8 name field 0, which protobuf forbids.
 */
import { parseFailed } from "../json-guard.ts";
import { isLengthPrefixed, PREFIX_BYTES } from "./detect.ts";
import { OTLP_PROTO_FORMAT } from "./proto-values.ts";

function truncated(at: number): Error {
  return parseFailed(OTLP_PROTO_FORMAT, `a length-prefixed request is cut off at byte ${at}`);
}

/**
 * `chunks` as they are, or without the length prefixes when the payload starts with one. With
 * `release`, each chunk is released once everything yielded from it has been asked past: for a
 * consumer that keeps no view of what it is given (a scanner copies it into its own memory).
 */
export async function* requestBytes(
  chunks: AsyncIterable<Uint8Array>,
  release: (chunk: Uint8Array) => void = () => {},
): AsyncGenerator<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  // Enough of the head to tell the forms apart.
  let head: Uint8Array = new Uint8Array(0);
  let done = false;
  const taken: Uint8Array[] = [];
  while (head.length <= PREFIX_BYTES && !done) {
    const next = await iterator.next();
    if (next.done) done = true;
    else {
      taken.push(next.value);
      head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
    }
  }
  // A head joined from several chunks is a copy: they are done with; a head of one is the chunk.
  const releaseHead = () => {
    if (taken.length === 1) release(head);
  };
  if (taken.length > 1) for (const chunk of taken) release(chunk);
  const rest: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => iterator };
  if (!isLengthPrefixed(head)) {
    if (head.length > 0) yield head;
    releaseHead();
    if (!done)
      for await (const chunk of rest) {
        yield chunk;
        release(chunk);
      }
    return;
  }
  const unframer = new Unframer();
  yield* unframer.push(head);
  releaseHead();
  if (!done)
    for await (const chunk of rest) {
      yield* unframer.push(chunk);
      release(chunk);
    }
  unframer.end();
}

/** Strips prefixes from a stream, chunk by chunk (a prefix may span chunks). */
class Unframer {
  private readonly prefix = new Uint8Array(PREFIX_BYTES);
  private prefixHave = 0;
  /** Body bytes still to pass through. */
  private body = 0;
  private offset = 0;

  *push(chunk: Uint8Array): Generator<Uint8Array> {
    let at = 0;
    while (at < chunk.length) {
      if (this.body > 0) {
        const take = Math.min(this.body, chunk.length - at);
        yield chunk.subarray(at, at + take);
        this.body -= take;
        at += take;
        continue;
      }
      const take = Math.min(PREFIX_BYTES - this.prefixHave, chunk.length - at);
      this.prefix.set(chunk.subarray(at, at + take), this.prefixHave);
      this.prefixHave += take;
      at += take;
      if (this.prefixHave === PREFIX_BYTES) {
        this.body = new DataView(this.prefix.buffer).getUint32(0);
        this.prefixHave = 0;
      }
    }
    this.offset += chunk.length;
  }

  end(): void {
    if (this.body > 0 || this.prefixHave > 0) throw truncated(this.offset);
  }
}
