/**
 * Recently seen sample stacks and what adding one costs to StackMeasures: its distinct frames,
 * its distinct call edges and its trie leaf. A profile repeats its hot stacks many times (perf
 * script writes every sample whole), and each repeat otherwise costs one edge lookup and one
 * trie lookup per level, hash probes into tables larger than the cache. A hit replays the
 * recorded adds instead, in the same order, so every sum is the same bit for bit.
 *
 * Memory is bounded: when the entries or their ints fill up, the cache starts empty. When few
 * lookups hit (a file of already aggregated stacks, where every line is a new stack), it rests
 * for a while (cache-use.ts), so such files pay almost nothing for it.
 */
import { CacheUse } from "./cache-use.ts";
import { GrowableI32 } from "./growable.ts";

/**
 * Entries before the cache starts empty (a power of two; the table has twice the slots). A
 * profile's hot stacks are far fewer; a heap profile, whose every stack is new, has one cache
 * per accumulator (DHAT: two, each summing two metrics), so the cache stays at about 6 MiB.
 */
const MAX_ENTRIES = 1 << 15;
/** Ints of paths, frames and edges held before the cache starts empty (4 MiB). */
const MAX_INTS = 1 << 20;

/** Fields of an entry, in `entries`: one Int32Array row of ENTRY_INTS ints. */
const E_HASH = 0;
const E_PATH = 1;
const E_LEN = 2;
export const E_FRAMES = 3;
export const E_FRAME_COUNT = 4;
export const E_EDGES = 5;
export const E_EDGE_COUNT = 6;
export const E_LEAF = 7;
export const E_EPOCH = 8;
const ENTRY_INTS = 9;

export class StackPathCache {
  /** Slot → entry + 1 (0: empty), open addressing. */
  private slots = new Int32Array(MAX_ENTRIES * 2);
  /** Entry rows of ENTRY_INTS ints; `find` returns a row's offset. */
  readonly entries = new Int32Array(MAX_ENTRIES * ENTRY_INTS);
  private count = 0;
  /** Paths, distinct frames and distinct edges of the entries, one after another. */
  readonly ints = new GrowableI32();
  /** When to consult and fill the cache (lookups answered: `use.totalHits`). */
  readonly use = new CacheUse();
  /** The entry a `find` returned or a `begin` opened. */
  private current = -1;
  private pendingHash = 0;
  private missed = false;

  /**
   * The entry of `path`, or -1 (an entry serves every track: what it records does not depend on
   * the track; the sums it replays into are the caller's track's). A miss may be followed by
   * `begin`, the frames and edges the slow path adds, and `end`.
   */
  find(path: readonly number[]): number {
    this.current = -1;
    this.missed = false;
    if (!this.use.look()) return -1;
    let h = 0x9e3779b1;
    for (let d = 0; d < path.length; d++) h = Math.imul(h ^ path[d]!, 0x85ebca77) ^ (h >>> 13);
    h |= 0;
    this.pendingHash = h;
    const mask = this.slots.length - 1;
    const entries = this.entries;
    const ints = this.ints.array;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const e = this.slots[slot]! - 1;
      if (e < 0) {
        this.missed = true;
        return -1;
      }
      const at = e * ENTRY_INTS;
      if (entries[at + E_HASH] !== h) continue;
      if (entries[at + E_LEN] !== path.length) continue;
      const p = entries[at + E_PATH]!;
      let d = 0;
      while (d < path.length && ints[p + d] === path[d]) d++;
      if (d === path.length) {
        this.use.hit();
        return at;
      }
    }
  }

  /** Whether the last `find` looked and missed (not resting): its path may be remembered. */
  get remembering(): boolean {
    return this.missed;
  }

  /** Opens an entry for the path the last `find` missed (its frames and edges follow). */
  begin(path: readonly number[]): void {
    if (this.count === MAX_ENTRIES || this.ints.length + path.length * 3 > MAX_INTS) this.clear();
    const at = this.count * ENTRY_INTS;
    const e = this.entries;
    e[at + E_HASH] = this.pendingHash;
    e[at + E_PATH] = this.ints.length;
    e[at + E_LEN] = path.length;
    for (let d = 0; d < path.length; d++) this.ints.push(path[d]!);
    e[at + E_FRAMES] = this.ints.length;
    this.current = at;
  }

  /** A distinct frame of the open entry, in the order the slow path counts it. */
  frame(f: number): void {
    this.ints.push(f);
  }

  /** Ends the frames, starts the edges. */
  framesDone(): void {
    const at = this.current;
    this.entries[at + E_FRAME_COUNT] = this.ints.length - this.entries[at + E_FRAMES]!;
    this.entries[at + E_EDGES] = this.ints.length;
  }

  edge(index: number): void {
    this.ints.push(index);
  }

  /** Closes the open entry with its trie leaf and the trie's epoch, and makes it findable. */
  end(leaf: number, epoch: number): void {
    const at = this.current;
    const e = this.entries;
    e[at + E_EDGE_COUNT] = this.ints.length - e[at + E_EDGES]!;
    e[at + E_LEAF] = leaf;
    e[at + E_EPOCH] = epoch;
    const mask = this.slots.length - 1;
    let slot = e[at + E_HASH]! & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = this.count + 1;
    this.count++;
    this.current = -1;
  }

  /** A leaf found again after the trie spilled. */
  setLeaf(at: number, leaf: number, epoch: number): void {
    this.entries[at + E_LEAF] = leaf;
    this.entries[at + E_EPOCH] = epoch;
  }

  private clear(): void {
    this.slots.fill(0);
    this.count = 0;
    this.ints.length = 0;
  }
}
