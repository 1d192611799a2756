/**
 * One cost line of a callgrind body: `positions... costs...`, as many position columns
 * as the `positions:` header names (`line` alone by default; `instr line` with
 * `--dump-instr=yes` and in pprof's output), then one integer per event; missing trailing
 * costs are zero. Positions use subposition compression: `*` repeats the previous line's
 * value, `+N` and `-N` are relative to it, anything else (decimal or `0x` hex) is
 * absolute. Costs are plain integers in the format; speedscope's test files also
 * compress costs the same way, so `*`, `+N` and `-N` in a cost column are read against
 * the previous cost line too, and counted.
 */

export interface ParsedCosts {
  /**
   * Costs per event column (raw file units); shorter than the event list when trailing ones are
   * omitted.
   */
  costs: number[];
  /** True when a cost column was written compressed (not in the format; counted). */
  compressedCost: boolean;
}

const POSITION = /^(?:\*|[+-]?(?:0x[0-9a-fA-F]+|\d+))$/;
const COST = /^(?:\*|[+-]\d+|\d+)$/;

/** True when the line starts like a cost line (a position), not a `key=` or `key:` line. */
export function isCostLine(line: string): boolean {
  const c = line.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 42;
}

export class CostLineReader {
  /** Values of the previous cost line, positions first: what `*` and `+N` refer to. */
  private previous: number[] = [];

  constructor(private positions: number) {}

  /** A new `positions:` header: earlier values no longer line up. */
  setPositions(count: number): void {
    this.positions = count;
    this.previous = [];
  }

  /** The parsed costs, or an error message (the caller names the line). */
  read(line: string): ParsedCosts | string {
    // Hand-scanned: a callgrind file is millions of these lines, and a split plus a regex
    // per token took most of the import. Tokens other than plain decimals take the slow path.
    const values: number[] = [];
    let compressedCost = false;
    const n = line.length;
    let i = 0;
    while (i < n) {
      let c = line.charCodeAt(i);
      if (c === 32 || c === 9) {
        i++;
        continue;
      }
      const start = i;
      let value = 0;
      let plain = true;
      while (i < n && (c = line.charCodeAt(i)) !== 32 && c !== 9) {
        if (c >= 48 && c <= 57 && plain) value = value * 10 + (c - 48);
        else plain = false;
        i++;
      }
      const column = values.length;
      const isPosition = column < this.positions;
      if (plain && i - start <= 15) {
        values.push(value);
        continue;
      }
      const token = line.slice(start, i);
      if (!(isPosition ? POSITION : COST).test(token))
        return (
          `column ${column + 1} (${JSON.stringify(token.slice(0, 40))}) is ` +
          `not ${isPosition ? "a position" : "an integer cost"}`
        );
      const first = token.charCodeAt(0);
      if (token === "*" || first === 43 || first === 45) {
        const before = this.previous[column];
        if (before === undefined)
          return (
            `column ${column + 1} (${token}) is relative but the previous cost line has no ` +
            `such column`
          );
        if (!isPosition) compressedCost = true;
        value = token === "*" ? before : before + Number(token);
      } else value = Number(token);
      if (!Number.isSafeInteger(value) || (!isPosition && value < 0))
        return (
          `column ${column + 1} (${JSON.stringify(token.slice(0, 40))}) ` +
          `is ${value < 0 ? "negative" : "beyond 2^53"}`
        );
      values.push(value);
    }
    if (values.length < this.positions) return `expected ${this.positions} position column(s)`;
    this.previous = values;
    return { costs: values.slice(this.positions), compressedCost };
  }

  /** The target position list of a `calls=` or `jump=` line: checked, not kept. */
  static validTargets(tokens: readonly string[]): boolean {
    return tokens.every((t) => POSITION.test(t));
  }
}
