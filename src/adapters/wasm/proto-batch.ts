/**
 * Read access to one batch of records emitted by the WASM protobuf scanner (same record
 * layout as the JSON scanner's; slots hold raw 64-bit values). Valid until drained.
 */
import type { HostStrings } from "./host-strings.ts";

export const PT_ABSENT = 0;
export const PT_STRING = 1;
export const PT_VARINT = 2;
export const PT_MESSAGE = 6;
export const PT_BYTES = 8;
export const PT_FIXED64 = 9;
export const PT_FIXED32 = 10;

/** The module's writer of OTLP attribute JSON (parsers-wasm/assembly/proto/kv-json.ts). */
export interface KeyValueJsonExports {
  keyValueJson(ptr: number, len: number): number;
  keyValueJsonPtr(): number;
  keyValueJsonBatch(kvType: number, slot: number): void;
  keyValueJsonBatchPtr(): number;
  keyValueJsonStartsPtr(): number;
  keyValueJsonLengthsPtr(): number;
}

export class ProtoBatch {
  count = 0;
  private i32 = new Int32Array(0);
  private f64 = new Float64Array(0);
  private i64 = new BigInt64Array(0);
  /** The scanner's linear memory (bytes slots point into it; see `bytesAt`). */
  u8 = new Uint8Array(0);
  private base = 0;
  private stride = 0;
  private textBase = 0;

  /** Where the last `keyValueJson` answer's JSON starts (in `u8`). */
  keyValueJsonAt = 0;
  private readonly oneJsonAt: number;
  private readonly batchJsonAt: number;
  private readonly batchStartsAt: number;
  private readonly batchLengthsAt: number;
  /** The batch's KeyValue type and slot once `prepareKeyValues` wrote them (-1: not this batch). */
  private preparedType = -1;
  private preparedSlot = -1;

  constructor(
    readonly strings: HostStrings,
    private readonly module: KeyValueJsonExports,
  ) {
    this.oneJsonAt = module.keyValueJsonPtr();
    this.batchJsonAt = module.keyValueJsonBatchPtr();
    this.batchStartsAt = module.keyValueJsonStartsPtr() >> 2;
    this.batchLengthsAt = module.keyValueJsonLengthsPtr() >> 2;
  }

  reset(
    memory: ArrayBuffer,
    recordsPtr: number,
    count: number,
    stride: number,
    textPtr: number,
  ): void {
    this.i32 = new Int32Array(memory);
    this.f64 = new Float64Array(memory);
    this.i64 = new BigInt64Array(memory);
    this.u8 = new Uint8Array(memory);
    this.base = recordsPtr >> 2;
    this.stride = stride >> 2;
    this.count = count;
    this.textBase = textPtr;
    this.preparedType = -1;
  }

  private at(r: number): number {
    return this.base + r * this.stride;
  }
  type(r: number): number {
    return this.i32[this.at(r)]! & 0xffff;
  }
  announced(r: number): boolean {
    return ((this.i32[this.at(r)]! >> 17) & 1) === 1;
  }
  serial(r: number): number {
    return this.i32[this.at(r) + 2]!;
  }
  parent(r: number): number {
    return this.i32[this.at(r) + 3]!;
  }
  kind(r: number, slot: number): number {
    return this.i32[this.at(r) + 4 + slot * 4]! & 15;
  }
  has(r: number, slot: number): boolean {
    return this.kind(r, slot) !== PT_ABSENT;
  }
  /** Length of a PT_MESSAGE or PT_BYTES slot. */
  length(r: number, slot: number): number {
    return this.i32[this.at(r) + 4 + slot * 4 + 1]!;
  }
  /** The slot's 64 bits as a signed bigint (varint, fixed64). */
  big(r: number, slot: number): bigint {
    return this.i64[(this.at(r) + 4 + slot * 4 + 2) >> 1]!;
  }
  /** The slot's 64 bits as an unsigned bigint. */
  ubig(r: number, slot: number): bigint {
    return BigInt.asUintN(64, this.big(r, slot));
  }
  /** A varint or fixed integer as a double (exact below 2^53); 0 when absent. */
  num(r: number, slot: number): number {
    const word = this.at(r) + 4 + slot * 4 + 2;
    const low = this.i32[word]! >>> 0;
    const high = this.i32[word + 1]!;
    return high * 0x1_0000_0000 + low;
  }
  /** A fixed64 slot read as a double. */
  double(r: number, slot: number): number {
    return this.f64[(this.at(r) + 4 + slot * 4 + 2) >> 1]!;
  }
  stringId(r: number, slot: number): number {
    return this.kind(r, slot) === PT_STRING
      ? this.strings.id(this.i32[this.at(r) + 4 + slot * 4 + 1]!)
      : -1;
  }
  string(r: number, slot: number): string | null {
    const id = this.stringId(r, slot);
    return id < 0 ? null : this.strings.get(id);
  }
  /** The low and high 32 bits of a varint or fixed slot (high signed). */
  low(r: number, slot: number): number {
    return this.i32[this.at(r) + 4 + slot * 4 + 2]! >>> 0;
  }
  high(r: number, slot: number): number {
    return this.i32[this.at(r) + 4 + slot * 4 + 3]!;
  }
  /**
   * Where a PT_BYTES slot's bytes start in `u8` (`length` bytes); -1 when the slot is not bytes.
   */
  bytesAt(r: number, slot: number): number {
    if (this.kind(r, slot) !== PT_BYTES) return -1;
    return this.textBase + this.f64[(this.at(r) + 4 + slot * 4 + 2) >> 1]!;
  }
  /**
   * The attribute JSON of a bytes slot that holds an OTLP KeyValue message, written by the
   * module: its length in `u8` from `keyValueJsonAt` (valid until the next call), or -1 where the
   * host must write it (src/adapters/otlp/proto-attributes-json.ts: ill-formed UTF-8 or a
   * leading BOM, bytes, repeated or unknown fields, malformed data).
   */
  keyValueJson(r: number, slot: number): number {
    if (this.preparedSlot === slot && this.type(r) === this.preparedType) {
      const length = this.i32[this.batchLengthsAt + r]!;
      if (length !== -2) {
        this.keyValueJsonAt = this.batchJsonAt + this.i32[this.batchStartsAt + r]!;
        return length;
      }
    }
    const at = this.bytesAt(r, slot);
    this.keyValueJsonAt = this.oneJsonAt;
    return at < 0 ? -1 : this.module.keyValueJson(at, this.length(r, slot));
  }

  /**
   * Has the module write the JSON of every KeyValue of this batch (records of `type`, the message
   * in `slot`) in one call; `keyValueJson` of those records then reads it. A call into the module
   * per attribute cost ~80 ns, ~5% of an OTLP import.
   */
  prepareKeyValues(type: number, slot: number): void {
    this.module.keyValueJsonBatch(type, slot);
    this.preparedType = type;
    this.preparedSlot = slot;
  }
  bytes(r: number, slot: number): Uint8Array {
    if (this.kind(r, slot) !== PT_BYTES) return new Uint8Array(0);
    const offset = this.f64[(this.at(r) + 4 + slot * 4 + 2) >> 1]!;
    return this.u8.subarray(this.textBase + offset, this.textBase + offset + this.length(r, slot));
  }
}
