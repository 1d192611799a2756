/** A host-side string table: one id per distinct string, with each string's UTF-8 cached. */
export class StringTable {
  private readonly values: string[] = [];
  private readonly byValue = new Map<string, number>();
  private readonly encoded: (Uint8Array | undefined)[] = [];

  id(value: string): number {
    let id = this.byValue.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.byValue.set(value, id);
    }
    return id;
  }

  get(id: number): string {
    return this.values[id]!;
  }

  /** Every string, indexed by id. */
  all(): readonly string[] {
    return this.values;
  }

  bytes(id: number): Uint8Array {
    let b = this.encoded[id];
    if (b === undefined) {
      b = new TextEncoder().encode(this.values[id]!);
      this.encoded[id] = b;
    }
    return b;
  }
}
