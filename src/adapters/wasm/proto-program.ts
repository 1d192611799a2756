/**
 * Field programs for the WASM protobuf scanner: which fields are messages to descend
 * into, which values fill which record slots, which repeated scalars may come packed.
 * Compiled into the words parsers-wasm/assembly/proto/program.ts reads.
 */
export const P_MESSAGE = 1;
export const P_SCALAR = 2;
export const P_BYTES = 3;
export const PACKED_VARINT = 1;
export const PACKED_FIXED64 = 2;
export const PACKED_FIXED32 = 3;

interface ProtoNode {
  record: number;
  slotRecord: number;
  slot: number;
  mode: number;
  packed: number;
  fields: [number, number][];
}

export class ProtoProgram {
  private readonly nodes: ProtoNode[] = [];
  private readonly specials: [number, number][] = [];

  constructor(readonly slotsPerRecord: number) {
    this.nodes.push({
      record: -1,
      slotRecord: -1,
      slot: -1,
      mode: P_MESSAGE,
      packed: 0,
      fields: [],
    });
  }

  /** A message node (its fields are described with `field`). */
  message(options: { record?: number } = {}): number {
    this.nodes.push({
      record: options.record ?? -1,
      slotRecord: -1,
      slot: -1,
      mode: P_MESSAGE,
      packed: 0,
      fields: [],
    });
    return this.nodes.length - 1;
  }

  record(node: number, record: number): this {
    this.nodes[node]!.record = record;
    return this;
  }

  /** Field `number` of `parent` is the message node `child`. */
  child(parent: number, number: number, child: number): number {
    this.nodes[parent]!.fields.push([number, child]);
    return child;
  }

  /** Field `number` of `parent` is a value filling `slot` of the innermost open `record`. */
  value(
    parent: number,
    number: number,
    record: number,
    slot: number,
    mode: number = P_SCALAR,
    packed = 0,
    ownRecord = -1,
  ): number {
    if (slot >= this.slotsPerRecord)
      throw new RangeError(`Slot ${slot} exceeds the program's ${this.slotsPerRecord} slots`);
    this.nodes.push({ record: ownRecord, slotRecord: record, slot, mode, packed, fields: [] });
    const node = this.nodes.length - 1;
    this.nodes[parent]!.fields.push([number, node]);
    return node;
  }

  /** A message node also records its own presence (and length) in a slot. */
  presence(node: number, record: number, slot: number): this {
    const n = this.nodes[node]!;
    n.slotRecord = record;
    n.slot = slot;
    return this;
  }

  whole(record: number): this {
    this.specials.push([record, -1]);
    return this;
  }

  announce(record: number): this {
    this.specials.push([record, -2]);
    return this;
  }

  compile(): Int32Array {
    const nodeWords: number[] = [];
    const fieldWords: number[] = [];
    for (const n of this.nodes) {
      nodeWords.push(
        n.record,
        n.slotRecord,
        n.slot,
        n.mode,
        n.packed,
        fieldWords.length / 2,
        n.fields.length,
      );
      for (const [number, child] of n.fields) fieldWords.push(number, child);
    }
    const specialWords = this.specials.flat();
    return Int32Array.from([
      this.nodes.length,
      0,
      this.slotsPerRecord,
      this.specials.length,
      fieldWords.length / 2,
      ...nodeWords,
      ...fieldWords,
      ...specialWords,
    ]);
  }
}
