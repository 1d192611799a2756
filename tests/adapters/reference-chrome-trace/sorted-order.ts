/**
 * Sorting event positions by a comparator, skipping the sort when they are already in
 * order: many traces are written in time order per thread, and checking is linear.
 */
export function sortInPlaceUnlessSorted(
  values: number[],
  compare: (a: number, b: number) => number,
): void {
  for (let i = 1; i < values.length; i++) {
    if (compare(values[i - 1]!, values[i]!) > 0) {
      values.sort(compare);
      return;
    }
  }
}
