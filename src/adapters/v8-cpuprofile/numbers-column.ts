/**
 * A column of JSON array elements that are almost always numbers: a Float64Array while
 * they are, a plain array of JSON.parse-equivalent values from the first one that is not,
 * so the shared normalizer reports a bad element exactly as it does for parsed JSON.
 */
import { GrowableF64 } from "../common/growable.ts";

export class NumbersColumn {
  private readonly numbers = new GrowableF64();
  private values: unknown[] | null = null;

  push(value: number | unknown, isNumber: boolean): void {
    if (this.values === null && isNumber) {
      this.numbers.push(value as number);
      return;
    }
    this.values ??= Array.from(this.numbers.array.subarray(0, this.numbers.length));
    this.values.push(value);
  }

  get length(): number {
    return this.values?.length ?? this.numbers.length;
  }

  /** The elements (a typed array view when all are numbers). */
  items(): readonly unknown[] {
    return (this.values ??
      this.numbers.array.subarray(0, this.numbers.length)) as readonly unknown[];
  }
}
