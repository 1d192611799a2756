/**
 * A column of JSON array elements that are almost always numbers: a Float64Array of the
 * numbers as the scanner's number runs deliver them, NaN in the place of an element that was
 * not a number (no JSON number parses to NaN), whose value comes apart, as its record. Read
 * back, it is the typed array itself, or, when an element was not a number, a plain array of
 * JSON.parse-equivalent values, so the shared normalizer reports a bad element exactly as it
 * does for parsed JSON.
 */
import { GrowableF64 } from "../common/growable.ts";

export class NumbersColumn {
  private readonly numbers: GrowableF64;
  /** The elements that were not numbers, in document order. */
  private readonly others: unknown[] = [];

  /** `capacity`: the elements expected (see `expectedSamples`); the column grows past it. */
  constructor(capacity = 1024) {
    this.numbers = new GrowableF64(0, Math.max(1, capacity));
  }

  /** A run of elements (NaN where an element was not a number). */
  pushRun(values: Float64Array): void {
    const at = this.numbers.extend(values.length);
    this.numbers.array.set(values, at);
  }

  /** The value of the next element that was not a number (its NaN is in a run). */
  pushOther(value: unknown): void {
    this.others.push(value);
  }

  get length(): number {
    return this.numbers.length;
  }

  /** The elements (a typed array view when all are numbers). */
  items(): readonly unknown[] {
    const numbers = this.numbers.array.subarray(0, this.numbers.length);
    if (this.others.length === 0) return numbers as unknown as readonly unknown[];
    const items: unknown[] = Array.from(numbers);
    let next = 0;
    for (let i = 0; i < items.length; i++)
      if (Number.isNaN(items[i])) items[i] = this.others[next++];
    return items;
  }
}

/**
 * Bytes of payload per sample that `expectedSamples` assumes: a sample is its node id and its
 * time delta ("1234,57," is 8 bytes); real profiles spend more per sample (the bench's 2M-sample
 * profile: 9.6 bytes, nodes included), so the estimate rarely falls short.
 */
const PAYLOAD_BYTES_PER_SAMPLE = 8;
/** At most this many elements are allocated ahead (64 MiB a column); larger profiles grow. */
const MAX_EXPECTED_SAMPLES = 1 << 23;

/**
 * Samples to size a profile's `samples` and `timeDeltas` columns for, from the payload's size.
 * Grown by doubling from 1024, a 2M-sample column was copied ~11 times into fresh memory: ~100 ms
 * of a 19 MB profile's ~400 ms scan. Allocated ahead, pages are only touched as they fill (a
 * larger estimate costs address space, not memory).
 */
export function expectedSamples(payloadBytes: number | undefined): number {
  if (payloadBytes === undefined || !(payloadBytes > 0)) return 1024;
  return Math.min(MAX_EXPECTED_SAMPLES, Math.ceil(payloadBytes / PAYLOAD_BYTES_PER_SAMPLE));
}
