/**
 * A map from a pair of non-negative int32s to a dense index, as an open-addressing hash
 * table in one typed array. Used for (parent, frame) lookups in the hot loops: a JS Map
 * would need a combined key (a string, or a double beyond int32 that hashes slowly) or a
 * Map per parent.
 *
 * Each slot's two keys and its value sit side by side: a trace's stack trie holds hundreds
 * of thousands of pairs, far more than the caches, and a lookup is one cache miss there
 * instead of one in each of three parallel arrays.
 *
 * A slot holds its first key plus one, so an empty slot is 0: a new table is a fresh zeroed
 * array, which costs nothing until a slot is written (filled with -1, the table's pages were all
 * written at each growth: ~2% of a 100 MB Chrome trace's parser thread).
 */
const EMPTY = 0;
/** Int32s per slot: key a, key b, value. */
const SLOT = 3;

export class IntPairMap {
  private slots: Int32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 16;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.slots = new Int32Array(capacity * SLOT);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The index stored for (a, b), or -1. `a` is below 2^31 - 1. */
  get(a: number, b: number): number {
    const slots = this.slots;
    const key = a + 1;
    for (let slot = slotOf(a, b) & this.mask; ; slot = (slot + 1) & this.mask) {
      const at = slot * SLOT;
      const stored = slots[at]!;
      if (stored === EMPTY) return -1;
      if (stored === key && slots[at + 1] === b) return slots[at + 2]!;
    }
  }

  /** Stores `value` for a pair that `get` just reported missing. */
  set(a: number, b: number, value: number): void {
    if (!(a >= 0 && a < 0x7fff_ffff)) throw new RangeError(`IntPairMap key ${a} out of range`);
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    this.insert(a + 1, b, value);
    this.count++;
  }

  /** Stores a slot whose first key is already stored as key + 1. */
  private insert(storedKey: number, b: number, value: number): void {
    const slots = this.slots;
    let slot = slotOf(storedKey - 1, b) & this.mask;
    while (slots[slot * SLOT] !== EMPTY) slot = (slot + 1) & this.mask;
    const at = slot * SLOT;
    slots[at] = storedKey;
    slots[at + 1] = b;
    slots[at + 2] = value;
  }

  private grow(): void {
    const old = this.slots;
    const capacity = (this.mask + 1) * 2;
    this.slots = new Int32Array(capacity * SLOT);
    this.mask = capacity - 1;
    for (let at = 0; at < old.length; at += SLOT) {
      if (old[at] !== EMPTY) this.insert(old[at]!, old[at + 1]!, old[at + 2]!);
    }
  }
}

function slotOf(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 15;
  return h >>> 0;
}
