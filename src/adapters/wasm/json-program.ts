/**
 * Path programs for the WASM JSON scanner: which values become records and which fill
 * their slots. A format describes its document once (e.g. "each element of
 * `traceEvents` is an event record; its `ts` fills slot 5"); this compiles that
 * description into the i32 words parsers-wasm/assembly/json/program.ts reads.
 */
export const MODE_SCALAR = 1;
export const MODE_JSON = 2;
export const MODE_JSON_IF_CONTAINER = 4;
/**
 * On an array's element node (with a record type): number elements go into the batch's
 * number runs (JsonBatch.forEachRun) instead of a record each; any other element opens its
 * record and leaves NaN in its place in the run.
 */
export const MODE_NUMBER_RUN = 8;

interface NodeSpec {
  record: number;
  slotRecord: number;
  slot: number;
  mode: number;
  elem: number;
  keys: [string, number][];
}

export class JsonProgram {
  private readonly nodes: NodeSpec[] = [];
  private readonly specials: [number, number, string][] = [];
  readonly slotsPerRecord: number;

  constructor(slotsPerRecord: number) {
    this.slotsPerRecord = slotsPerRecord;
    this.node(); // node 0: the document's top-level value
  }

  /** A new node; returns its id. */
  node(options: { record?: number } = {}): number {
    this.nodes.push({
      record: options.record ?? -1,
      slotRecord: -1,
      slot: -1,
      mode: 0,
      elem: -1,
      keys: [],
    });
    return this.nodes.length - 1;
  }

  /** Makes `node`'s value open a record of `record`. */
  record(node: number, record: number): this {
    this.nodes[node]!.record = record;
    return this;
  }

  /** `node`'s value fills `slot` of the innermost open record of type `record`. */
  slot(node: number, record: number, slot: number, mode = MODE_SCALAR): this {
    if (slot >= this.slotsPerRecord)
      throw new RangeError(`Slot ${slot} exceeds the program's ${this.slotsPerRecord} slots`);
    const spec = this.nodes[node]!;
    spec.slotRecord = record;
    spec.slot = slot;
    spec.mode = mode;
    return this;
  }

  /** The node of the value under `key` of `node`'s object (created unless given). */
  key(node: number, key: string, child = this.node()): number {
    this.nodes[node]!.keys.push([key, child]);
    return child;
  }

  /** The node of every element of `node`'s array (created unless given). */
  elem(node: number, child = this.node()): number {
    this.nodes[node]!.elem = child;
    return child;
  }

  /** Records of `record` whose `slot` holds the string `value` keep their JSON slots whole. */
  special(record: number, slot: number, value: string): this {
    this.specials.push([record, slot, value]);
    return this;
  }

  /**
   * Records of `record` are also announced (header only) when they open, so their position is known
   * before their children.
   */
  announce(record: number): this {
    this.specials.push([record, -2, ""]);
    return this;
  }

  compile(): Int32Array {
    const encoder = new TextEncoder();
    const blob: number[] = [];
    const addBytes = (text: string): { length: number; offset: number; bytes: Uint8Array } => {
      const bytes = encoder.encode(text);
      const offset = blob.length;
      for (const b of bytes) blob.push(b);
      return { length: bytes.length, offset, bytes };
    };
    const keyWords: number[] = [];
    const nodeWords: number[] = [];
    let keyCount = 0;
    for (const n of this.nodes) {
      nodeWords.push(n.record, n.slotRecord, n.slot, n.mode, n.elem, keyCount, n.keys.length);
      for (const [key, child] of n.keys) {
        const { length, offset, bytes } = addBytes(key);
        keyWords.push(child, length, fnv1a(bytes) | 0, offset);
        keyCount++;
      }
    }
    const specialWords: number[] = [];
    for (const [record, slot, value] of this.specials) {
      const { length, offset } = addBytes(value);
      specialWords.push(record, slot, length, offset);
    }
    const header = [this.nodes.length, 0, this.slotsPerRecord, this.specials.length, keyCount];
    const words = [...header, ...nodeWords, ...keyWords, ...specialWords];
    const out = new Int32Array(words.length + ((blob.length + 3) >> 2));
    out.set(words);
    new Uint8Array(out.buffer).set(blob, words.length * 4);
    return out;
  }
}

/** FNV-1a 32 with the low bit set, as the scanner hashes keys (common/dict.ts hashBytes). */
export function fnv1a(bytes: Uint8Array): number {
  let h = 2166136261;
  for (const b of bytes) h = Math.imul(h ^ b, 16777619) >>> 0;
  return (h | 1) >>> 0;
}
