/**
 * Buffers of streamed column batches, used again once their part is encoded. A column builder
 * hands its filled arrays to the batch it builds and goes on in arrays from this thread's free
 * list. It used to copy each batch out of arrays it kept, into fresh memory every time: on a 40 MB
 * real Chromium Perfetto trace, ~2 MB a batch and ~10% of the parser thread, most of it first-touch
 * page faults (~2.8 µs per 4 KiB here), not the copy. An encoded part's buffers come back to the
 * list: from the encoding thread, moved back with its answer, or at once when the part was encoded
 * on this thread.
 *
 * Buffers are kept by their exact byte length, and only lengths asked for before: a builder asks
 * for the same lengths batch after batch (its capacity, its grown data), so what comes back fits
 * the next batch, and buffers of other lengths (cut batches) are left to the collector. The list
 * keeps at most KEPT_BYTES.
 */

/** Bytes the free list keeps (about two Parquet parts of batches, see workers/table-parts.ts). */
export const KEPT_BYTES = 16 << 20;

/** Per byte length, the free buffers. */
const free = new Map<number, ArrayBuffer[]>();
let keptBytes = 0;
/** Buffers handed out on this thread: only these may come back from a part encoded here. */
const issued = new WeakSet<ArrayBuffer>();

/** A buffer of `bytes` bytes, its contents unspecified (the caller overwrites them). */
function batchBuffer(bytes: number): ArrayBuffer {
  let list = free.get(bytes);
  if (list === undefined) {
    list = [];
    free.set(bytes, list);
  }
  const buffer = list.pop();
  if (buffer !== undefined) keptBytes -= bytes;
  const out = buffer ?? new ArrayBuffer(bytes);
  issued.add(out);
  return out;
}

/** `length` int32s in a batch buffer; their values are unspecified. */
export function int32s(length: number): Int32Array {
  return new Int32Array(batchBuffer(4 * length));
}

/** `length` int64s in a batch buffer; their values are unspecified. */
export function bigInt64s(length: number): BigInt64Array {
  return new BigInt64Array(batchBuffer(8 * length));
}

/** `length` bytes in a batch buffer; their values are unspecified. */
export function bytesOf(length: number): Uint8Array {
  return new Uint8Array(batchBuffer(length));
}

/** Whether `buffer` is a batch buffer of this thread (a view of it owns it whole). */
export function isBatchBuffer(buffer: ArrayBufferLike): boolean {
  return buffer instanceof ArrayBuffer && issued.has(buffer);
}

/**
 * Keeps buffers no longer read for the next batches. `owned`: every buffer was its batch's alone
 * (what a thread moved back: the batches it received were made transferable); otherwise only
 * this thread's batch buffers are kept, since a batch may hold views of memory that something
 * else still reads.
 */
export function recycleBatchBuffers(buffers: Iterable<ArrayBufferLike>, owned: boolean): void {
  for (const buffer of buffers) {
    if (!(buffer instanceof ArrayBuffer) || buffer.detached) continue;
    if (!owned && !issued.has(buffer)) continue;
    const bytes = buffer.byteLength;
    const list = free.get(bytes);
    if (list === undefined || keptBytes + bytes > KEPT_BYTES) continue;
    list.push(buffer);
    // Kept: handed out again only through batchBuffer, which marks it issued anew.
    issued.delete(buffer);
    keptBytes += bytes;
  }
}

/** Bytes the free list holds (for tests). */
export function keptBatchBytes(): number {
  return keptBytes;
}
