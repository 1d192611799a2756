/**
 * Buffers of streamed column batches, used again once their part is encoded. A column builder
 * copies each batch out of its own arrays (it fills them again for the next batch), and the copy
 * went to fresh memory every time: on a 40 MB real Chromium Perfetto trace, ~2 MB a batch, ~10% of
 * the parser thread, most of it first-touch page faults (~2.8 µs per 4 KiB here), not the copy.
 * Now a copy goes into a buffer from this thread's free list when one of its size class is there;
 * an encoded part's buffers come back to it (from the encoding thread, moved back with its answer,
 * or at once when the part was encoded on this thread).
 *
 * Buffers are sized in powers of two from 4 KiB, so one freed by a batch fits the next batch's
 * column of about the same size; a batch's array is a view of its first bytes. The free list
 * keeps at most KEPT_BYTES: the buffers beyond are left to the collector, as before.
 */

const MIN_CLASS = 12;
/**
 * Bytes the free list keeps: four Parquet parts of batches (BYTES_PER_PART in
 * workers/table-parts.ts), as many as are in flight at once (MAX_PARTS_IN_FLIGHT) plus the one
 * being filled. Keeping one part's worth, the buffers of the parts that came back together
 * were mostly dropped, and the next batches went to fresh memory again: batchBuffer was 460 ms
 * of a 100 MB Perfetto import's parser thread, 146 ms with four.
 */
export const KEPT_BYTES = 32 << 20;

/** Per size class (log2 of the byte length), the free buffers. */
const free: ArrayBuffer[][] = [];
let keptBytes = 0;
/** Buffers handed out on this thread: only these may come back from a part encoded here. */
const issued = new WeakSet<ArrayBuffer>();

function classOf(bytes: number): number {
  return Math.max(MIN_CLASS, 32 - Math.clz32(Math.max(1, bytes) - 1));
}

/** A buffer of at least `bytes` bytes, its contents unspecified (the caller overwrites them). */
function batchBuffer(bytes: number): ArrayBuffer {
  // Larger than the list keeps: never kept, so not rounded up either.
  if (bytes > KEPT_BYTES) return new ArrayBuffer(bytes);
  const c = classOf(bytes);
  const buffer = free[c]?.pop();
  if (buffer !== undefined) {
    keptBytes -= buffer.byteLength;
    issued.add(buffer);
    return buffer;
  }
  const fresh = new ArrayBuffer(2 ** c);
  issued.add(fresh);
  return fresh;
}

/** The first `length` values of `source`, copied into a batch buffer. */
export function copyInt32(source: Int32Array, length: number): Int32Array {
  const out = new Int32Array(batchBuffer(4 * length), 0, length);
  out.set(source.subarray(0, length));
  return out;
}

export function copyBigInt64(source: BigInt64Array, length: number): BigInt64Array {
  const out = new BigInt64Array(batchBuffer(8 * length), 0, length);
  out.set(source.subarray(0, length));
  return out;
}

export function copyUint8(source: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(batchBuffer(length), 0, length);
  out.set(source.subarray(0, length));
  return out;
}

/** Whether `buffer` is a batch buffer of this thread (a view of it owns it whole). */
export function isBatchBuffer(buffer: ArrayBufferLike): boolean {
  return buffer instanceof ArrayBuffer && issued.has(buffer);
}

/**
 * Keeps buffers of encoded batches for the next batches. `owned`: every buffer is the batch's
 * alone (what a thread moved back: the batches it received were made transferable); otherwise
 * only this thread's batch buffers are kept, since a batch may hold views of memory that
 * something else still reads.
 */
export function recycleBatchBuffers(buffers: Iterable<ArrayBufferLike>, owned: boolean): void {
  for (const buffer of buffers) {
    if (!(buffer instanceof ArrayBuffer) || buffer.detached) continue;
    if (!owned && !issued.has(buffer)) continue;
    const bytes = buffer.byteLength;
    if (keptBytes + bytes > KEPT_BYTES) continue;
    // Only whole size classes (bytes is at most KEPT_BYTES here): anything else is not a buffer
    // this list handed out.
    if (bytes < 2 ** MIN_CLASS || (bytes & (bytes - 1)) !== 0) continue;
    const c = classOf(bytes);
    (free[c] ??= []).push(buffer);
    // Kept: handed out again only through batchBuffer, which marks it issued anew.
    issued.delete(buffer);
    keptBytes += bytes;
  }
}

/** Bytes the free list holds (for tests). */
export function keptBatchBytes(): number {
  return keptBytes;
}
