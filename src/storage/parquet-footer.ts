/**
 * Row count from a Parquet footer without decoding any column. parquet-wasm only exposes
 * metadata through its async ParquetFile (Blob/URL) API, so the few fields needed are read
 * here from the Thrift compact-protocol FileMetaData (field 3, num_rows: i64).
 */

const MAGIC = 0x31524150; // "PAR1" little-endian

enum CType {
  Stop = 0,
  True = 1,
  False = 2,
  Byte = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  Double = 7,
  Binary = 8,
  List = 9,
  Set = 10,
  Map = 11,
  Struct = 12,
}

class CompactReader {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  byte(): number {
    if (this.pos >= this.bytes.length) throw new RangeError("Truncated Parquet footer");
    return this.bytes[this.pos++]!;
  }

  /** Unsigned varint as a double: exact up to 2^53, plenty for row counts and lengths. */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
    }
  }

  zigzag(): number {
    const v = this.varint();
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  skip(type: number): void {
    switch (type) {
      case CType.True:
      case CType.False:
        return; // value lives in the field header (inside lists it is one byte, see skipList)
      case CType.Byte:
        this.pos += 1;
        return;
      case CType.I16:
      case CType.I32:
      case CType.I64:
        this.varint();
        return;
      case CType.Double:
        this.pos += 8;
        return;
      case CType.Binary: {
        // Not `this.pos += this.varint()`: that reads pos before varint() advances it.
        const length = this.varint();
        this.pos += length;
        return;
      }
      case CType.List:
      case CType.Set:
        this.skipList();
        return;
      case CType.Map:
        this.skipMap();
        return;
      case CType.Struct:
        this.skipStruct();
        return;
      default:
        throw new RangeError(`Unknown Thrift compact type ${type}`);
    }
  }

  /** Reads a field header; returns [fieldId, type] or null at STOP. */
  field(lastId: number): [number, number] | null {
    const header = this.byte();
    if (header === CType.Stop) return null;
    const delta = header >> 4;
    const id = delta === 0 ? this.zigzag() : lastId + delta;
    return [id, header & 0x0f];
  }

  private skipStruct(): void {
    let id = 0;
    for (let f = this.field(id); f; f = this.field(id)) {
      id = f[0];
      this.skip(f[1]);
    }
  }

  private skipList(): void {
    const header = this.byte();
    let size = header >> 4;
    if (size === 15) size = this.varint();
    const elem = header & 0x0f;
    for (let i = 0; i < size; i++) {
      if (elem === CType.True || elem === CType.False) this.pos += 1;
      else this.skip(elem);
    }
  }

  private skipMap(): void {
    const size = this.varint();
    if (size === 0) return;
    const types = this.byte();
    for (let i = 0; i < size; i++) {
      this.skipMapValue(types >> 4);
      this.skipMapValue(types & 0x0f);
    }
  }

  private skipMapValue(type: number): void {
    if (type === CType.True || type === CType.False) this.pos += 1;
    else this.skip(type);
  }
}

/** Number of rows recorded in the file's footer. */
export function parquetRowCount(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (
    bytes.length < 12 ||
    view.getUint32(bytes.length - 4, true) !== MAGIC ||
    view.getUint32(0, true) !== MAGIC
  ) {
    throw new RangeError("Not a Parquet file");
  }
  const metaLength = view.getUint32(bytes.length - 8, true);
  const metaStart = bytes.length - 8 - metaLength;
  if (metaStart < 4) throw new RangeError("Corrupt Parquet footer length");
  const reader = new CompactReader(bytes.subarray(0, bytes.length - 8), metaStart);
  let id = 0;
  for (let f = reader.field(id); f; f = reader.field(id)) {
    id = f[0];
    if (id === 3 && f[1] === CType.I64) return reader.zigzag();
    reader.skip(f[1]);
  }
  throw new RangeError("Parquet footer has no num_rows");
}
