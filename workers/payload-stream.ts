/**
 * The CAS payload as a stream of decompressed chunks: read in 1 MiB pieces, decompressed
 * on the fly when it starts with the gzip or zstd magic (`.json.gz`, `.pftrace.zst`, …),
 * with a budget on the decompressed size. The first bytes are read ahead for format
 * detection and replayed at the front of the stream.
 */
import { closeSync, createReadStream, openSync, read, readSync } from "node:fs";
import { constants as bufferConstants } from "node:buffer";
import type * as Zlib from "node:zlib";
import { FlameoxError } from "../src/domain/errors.ts";
import { type Landing, waitForBytes } from "./payload-landing.ts";

const READ_CHUNK = 1 << 20;
const MAX_LENGTH = bufferConstants.MAX_LENGTH;

export type PayloadCompression = "none" | "gzip" | "zstd";

export interface Payload {
  compression: PayloadCompression;
  /** At least the first `headBytes` decompressed bytes (fewer only when the payload is shorter). */
  head: Uint8Array;
  /** Every decompressed byte, head included, in order; iterate once. */
  chunks: AsyncIterable<Uint8Array>;
  /**
   * Says the consumer is done with `chunk`, one of `chunks`, and keeps no view of it: a plain
   * payload reads its next bytes into that memory rather than into a fresh buffer (see
   * ReadBuffers). Optional for consumers.
   */
  release?(chunk: Uint8Array): void;
}

/**
 * A plain payload's read buffers, used again once the consumer releases a chunk. A fresh 1 MiB
 * buffer per read cost a first-touch page fault per 4 KiB (~2.8 µs each here): ~25K faults per
 * 100 MB read, 17% of a Chrome trace's import's faults. Chunks that are never released (a consumer
 * that keeps them) cost what they did before.
 */
class ReadBuffers {
  private readonly spare: Buffer[] = [];
  /** Buffers this reader made, by their memory: only these are taken back. */
  private readonly own = new WeakMap<ArrayBufferLike, Buffer>();

  take(): Buffer {
    const spare = this.spare.pop();
    if (spare !== undefined) return spare;
    const buffer = Buffer.allocUnsafeSlow(READ_CHUNK);
    this.own.set(buffer.buffer, buffer);
    return buffer;
  }

  release(chunk: Uint8Array): void {
    const buffer = this.own.get(chunk.buffer);
    // Two spare buffers: one being read into while the consumer works on the other.
    if (buffer === undefined || this.spare.length >= 2 || this.spare.includes(buffer)) return;
    this.spare.push(buffer);
  }
}

/** The compression the payload's magic bytes name (gzip 1f 8b; zstd frame 28 b5 2f fd). */
function compressionOf(path: string): PayloadCompression {
  const fd = openSync(path, "r");
  try {
    const magic = new Uint8Array(4);
    const n = readSync(fd, magic, 0, 4, 0);
    if (n >= 2 && magic[0] === 0x1f && magic[1] === 0x8b) return "gzip";
    if (n === 4 && magic[0] === 0x28 && magic[1] === 0xb5 && magic[2] === 0x2f && magic[3] === 0xfd)
      return "zstd";
    return "none";
  } finally {
    closeSync(fd);
  }
}

/**
 * A plain payload's chunks, read with one read ahead (the next chunk is read while the
 * parser works on this one). Node streams are not used here: loading node:zlib (and with it
 * node:stream) is 30-40 ms of a worker's start, which a plain payload does not need.
 */
async function* plain(
  path: string,
  onRead: (bytes: number) => void,
  landing: Landing | null,
  buffers: ReadBuffers,
): AsyncGenerator<Uint8Array> {
  const fd = openSync(path, "r");
  // Reads are positioned: a read that finds the end of a payload still landing is issued again.
  let requested = 0;
  // A fresh buffer per chunk unless the consumer released one: consumers may keep a chunk (the
  // head is replayed).
  const next = () =>
    new Promise<{ bytesRead: number; buffer: Buffer }>((resolve, reject) => {
      const buffer = buffers.take();
      const length = landing ? Math.min(READ_CHUNK, landing.bytes - requested) : READ_CHUNK;
      if (length === 0) return resolve({ bytesRead: 0, buffer });
      read(fd, buffer, 0, length, requested, (error, bytesRead) => {
        if (error) return reject(error);
        requested += bytesRead;
        resolve({ bytesRead, buffer });
      });
    });
  let reading = next();
  try {
    for (;;) {
      const { bytesRead, buffer } = await reading;
      if (bytesRead === 0) {
        if (landing === null || requested >= landing.bytes) return;
        // Caught up with the copy: the rest has not landed yet.
        await waitForBytes(fd, requested + 1);
        reading = next();
        continue;
      }
      reading = next();
      onRead(bytesRead);
      yield bytesRead === READ_CHUNK ? buffer : buffer.subarray(0, bytesRead);
    }
  } finally {
    // The read ahead may still be in flight when the consumer stops early.
    await reading.catch(() => {});
    closeSync(fd);
  }
}

async function* decompressed(
  path: string,
  compression: PayloadCompression,
  maxBytes: number,
  onRead: (bytes: number) => void,
  landing: Landing | null,
  buffers: ReadBuffers,
): AsyncGenerator<Uint8Array> {
  if (compression === "none") {
    yield* plain(path, onRead, landing, buffers);
    return;
  }
  // The stream below ends at the file's end: a compressed payload is read once it has landed.
  if (landing) await waitForBytes(path, landing.bytes);
  const zlib = require("node:zlib") as typeof Zlib;
  const file = createReadStream(path, { highWaterMark: READ_CHUNK });
  // Stored bytes, not decompressed ones: progress is measured against the file's size.
  file.on("data", (chunk) => onRead((chunk as Uint8Array).length));
  const inflate =
    compression === "gzip"
      ? zlib.createGunzip({ chunkSize: READ_CHUNK })
      : zlib.createZstdDecompress({ chunkSize: READ_CHUNK });
  file.on("error", (error) => inflate.destroy(error));
  file.pipe(inflate);
  let total = 0;
  try {
    for await (const chunk of inflate) {
      total += (chunk as Uint8Array).length;
      if (total > maxBytes)
        throw new FlameoxError(
          "ARTIFACT_TOO_LARGE",
          `Cannot decompress artifact: it expands beyond ${maxBytes} bytes`,
        );
      yield chunk as Uint8Array;
    }
  } catch (error) {
    if (error instanceof FlameoxError) throw error;
    throw new FlameoxError(
      "ARTIFACT_PARSE_FAILED",
      `Cannot decompress artifact: ${(error as Error).message}`,
    );
  } finally {
    file.destroy();
    inflate.destroy();
  }
}

/**
 * `checkpoint` runs after every chunk read (the worker paces its collections there, see
 * memory-governor.ts); `onRead` gets the count of stored bytes read, for progress. With
 * `landing`, the payload is read as it lands (payload-landing.ts).
 */
export async function openPayload(
  path: string,
  maxDecompressedBytes: number,
  headBytes: number,
  checkpoint: () => void = () => {},
  onRead: (bytes: number) => void = () => {},
  landing: Landing | null = null,
): Promise<Payload> {
  if (landing) await waitForBytes(path, Math.min(4, landing.bytes));
  const compression = compressionOf(path);
  const buffers = new ReadBuffers();
  const source = decompressed(path, compression, maxDecompressedBytes, onRead, landing, buffers);
  const early: Uint8Array[] = [];
  let have = 0;
  while (have < headBytes) {
    const next = await source.next();
    if (next.done) break;
    early.push(next.value);
    have += next.value.length;
  }
  const head = concat(early, Math.min(have, headBytes));
  async function* all(): AsyncGenerator<Uint8Array> {
    yield* early;
    early.length = 0;
    for (;;) {
      const next = await source.next();
      if (next.done) return;
      checkpoint();
      yield next.value;
    }
  }
  return { compression, head, chunks: all(), release: (chunk) => buffers.release(chunk) };
}

/** The first `length` bytes of the chunks. */
function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    if (at >= length) break;
    const take = Math.min(chunk.length, length - at);
    out.set(chunk.subarray(0, take), at);
    at += take;
  }
  return out;
}

/** The whole payload in one buffer (adapters without streaming extraction). */
export async function collectPayload(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    length += chunk.length;
    // One in-memory buffer cannot exceed buffer.constants.MAX_LENGTH; larger payloads need a
    // streaming adapter.
    if (length > MAX_LENGTH)
      throw new FlameoxError(
        "ARTIFACT_TOO_LARGE",
        `Cannot load artifact: it is larger than ${MAX_LENGTH} bytes, the most one buffer can hold`,
      );
  }
  return concat(parts, length);
}

/**
 * Reads the rest of the payload without keeping it (so a decompression bomb still hits its budget).
 */
export async function drainPayload(chunks: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const _ of chunks);
}
