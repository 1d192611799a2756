/**
 * A thread's samples summed per stack index, so that each distinct stack is walked and added to
 * the sampled-stack accumulation once rather than once per sample: a profile samples the same
 * few thousand stacks millions of times, and every sample's path walk, cache lookup and replay
 * took ~70% of a Gecko import (a 25 MB profile: 2.5 s of 4.1). The sums are of integers below
 * 2^53 (the import checks its totals against that), so they are exact in any order, and the
 * stacks are added in the order each was first sampled: the accumulation's stacks, frames and
 * call edges come out as they did sample by sample.
 */
export class StackSums {
  private readonly count: Float64Array;
  private readonly value: Float64Array;
  private readonly firstNs: Float64Array;
  private readonly seen: Uint8Array;
  /** Stack indices in the order of their first sample. */
  private readonly order: number[] = [];

  constructor(stacks: number) {
    this.count = new Float64Array(stacks);
    this.value = new Float64Array(stacks);
    this.firstNs = new Float64Array(stacks).fill(Number.POSITIVE_INFINITY);
    this.seen = new Uint8Array(stacks);
  }

  add(stack: number, count: number, value: number, firstNs: number): void {
    if (this.seen[stack] === 0) {
      this.seen[stack] = 1;
      this.order.push(stack);
    }
    this.count[stack]! += count;
    this.value[stack]! += value;
    if (firstNs < this.firstNs[stack]!) this.firstNs[stack] = firstNs;
  }

  /** Each summed stack once, in the order of its first sample. */
  forEach(f: (stack: number, count: number, value: number, firstNs: number) => void): void {
    for (const s of this.order) f(s, this.count[s]!, this.value[s]!, this.firstNs[s]!);
  }
}
