/**
 * requestBytes with a release callback: a chunk is released only once everything yielded from it
 * has been asked past, exactly once, so a reader may write into it again (here: scribble over it)
 * without changing what a consumer that copies each piece receives. Both forms: raw requests, and
 * the collector's length-prefixed file, prefixes cut across chunks.
 */
import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { requestBytes } from "../../src/adapters/otlp/length-prefixed.ts";

/** `bytes` in chunks of random sizes (1 to 300 bytes), each its own memory. */
function chunked(bytes: Uint8Array, seed: number): Uint8Array[] {
  const random = mulberry32(seed);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = 1 + Math.floor(random() * 300);
    out.push(bytes.slice(at, at + n));
    at += n;
  }
  return out;
}

async function* source(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

/** What a copying consumer receives, with every released chunk scribbled over at once. */
async function consume(chunks: Uint8Array[]): Promise<{ bytes: Uint8Array; released: number }> {
  const released = new Set<Uint8Array>();
  const received: number[] = [];
  const release = (chunk: Uint8Array) => {
    expect(released.has(chunk)).toBe(false);
    released.add(chunk);
    chunk.fill(0xee);
  };
  for await (const piece of requestBytes(source(chunks), release)) {
    await Bun.sleep(0);
    received.push(...piece);
  }
  return { bytes: Uint8Array.from(received), released: released.size };
}

/** A raw request's bytes: field 1 (resource_spans), length-delimited, of random content. */
function request(n: number, seed: number): Uint8Array {
  const random = mulberry32(seed);
  const body = Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
  return Uint8Array.from([0x0a, ...varint(n), ...body]);
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

function prefixed(requests: Uint8Array[]): Uint8Array {
  const parts: number[] = [];
  for (const r of requests)
    parts.push(
      r.length >>> 24,
      (r.length >>> 16) & 255,
      (r.length >>> 8) & 255,
      r.length & 255,
      ...r,
    );
  return Uint8Array.from(parts);
}

describe("OTLP request bytes, chunks released", () => {
  test("raw requests pass through whole; every chunk is released once", async () => {
    const bytes = request(5000, 1);
    const chunks = chunked(bytes, 2);
    const { bytes: out, released } = await consume(chunks);
    expect(Buffer.compare(out, bytes)).toBe(0);
    expect(released).toBe(chunks.length);
  });

  test("length-prefixed requests lose their prefixes, cut anywhere; every chunk released once", async () => {
    const requests = [request(700, 3), request(1, 4), request(2000, 5), request(90, 6)];
    const chunks = chunked(prefixed(requests), 7);
    const { bytes: out, released } = await consume(chunks);
    const expected = Uint8Array.from(requests.flatMap((r) => [...r]));
    expect(Buffer.compare(out, expected)).toBe(0);
    expect(released).toBe(chunks.length);
  });
});
