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
  private readonly numbers = new GrowableF64();
  /** The elements that were not numbers, in document order. */
  private readonly others: unknown[] = [];

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
