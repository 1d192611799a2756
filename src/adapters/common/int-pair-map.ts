/**
 * A map from a pair of non-negative int32s to a dense index, as an open-addressing hash
 * table in typed arrays. Used for (parent, frame) lookups in the hot loops: a JS Map
 * would need a combined key (a string, or a double beyond int32 that hashes slowly) or a
 * Map per parent.
 */
const EMPTY = -1;

export class IntPairMap {
  private keysA: Int32Array;
  private keysB: Int32Array;
  private values: Int32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 16;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.keysA = new Int32Array(capacity).fill(EMPTY);
    this.keysB = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The index stored for (a, b), or -1. */
  get(a: number, b: number): number {
    for (let slot = slotOf(a, b) & this.mask; ; slot = (slot + 1) & this.mask) {
      const stored = this.keysA[slot]!;
      if (stored === EMPTY) return -1;
      if (stored === a && this.keysB[slot] === b) return this.values[slot]!;
    }
  }

  /** Stores `value` for a pair that `get` just reported missing. */
  set(a: number, b: number, value: number): void {
    if ((this.count + 1) * 2 > this.keysA.length) this.grow();
    this.insert(a, b, value);
    this.count++;
  }

  private insert(a: number, b: number, value: number): void {
    let slot = slotOf(a, b) & this.mask;
    while (this.keysA[slot] !== EMPTY) slot = (slot + 1) & this.mask;
    this.keysA[slot] = a;
    this.keysB[slot] = b;
    this.values[slot] = value;
  }

  private grow(): void {
    const { keysA, keysB, values } = this;
    const capacity = keysA.length * 2;
    this.keysA = new Int32Array(capacity).fill(EMPTY);
    this.keysB = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let slot = 0; slot < keysA.length; slot++) {
      if (keysA[slot] !== EMPTY) this.insert(keysA[slot]!, keysB[slot]!, values[slot]!);
    }
  }
}

function slotOf(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 15;
  return h >>> 0;
}
