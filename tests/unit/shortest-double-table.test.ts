/**
 * The cached powers of ten of the module's double formatter
 * (parsers-wasm/assembly/proto/shortest-double.ts) are what their comment says: for
 * d = -348, -340, …, 340, the normalized 64-bit significand f and binary exponent e with f × 2^e
 * nearest to 10^d, recomputed here exactly with big integers.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const SOURCE = join(import.meta.dir, "../../parsers-wasm/assembly/proto/shortest-double.ts");

function table(source: string, name: string): string[] {
  const body = new RegExp(`const ${name}: StaticArray<\\w+> = \\[([^\\]]*)\\]`).exec(source)?.[1];
  if (body === undefined) throw new Error(`${name} not found`);
  return body
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** f and e with 2^63 <= f < 2^64 and f × 2^e nearest to 10^d. */
function cachedPower(d: number): { f: bigint; e: number } {
  const num = d >= 0 ? 10n ** BigInt(d) : 1n;
  const den = d >= 0 ? 1n : 10n ** BigInt(-d);
  const bits = (x: bigint) => x.toString(2).length;
  let e = bits(num) - bits(den) - 64;
  const ratio = (e: number): [bigint, bigint] =>
    e >= 0 ? [num, den << BigInt(e)] : [num << BigInt(-e), den];
  for (;;) {
    const [n, m] = ratio(e);
    const q = n / m;
    if (q >= 1n << 64n) e++;
    else if (q < 1n << 63n) e--;
    else break;
  }
  const [n, m] = ratio(e);
  let f = n / m;
  if (2n * (n % m) >= m) f++;
  if (f === 1n << 64n) return { f: f >> 1n, e: e + 1 };
  return { f, e };
}

test("the cached powers of ten are 10^d rounded to 64 bits", () => {
  const source = readFileSync(SOURCE, "utf8");
  const significands = table(source, "CACHED_F").map((s) => BigInt(s));
  const exponents = table(source, "CACHED_E").map(Number);
  expect(significands).toHaveLength(87);
  expect(exponents).toHaveLength(87);
  for (let i = 0; i < 87; i++) {
    const { f, e } = cachedPower(-348 + 8 * i);
    expect([significands[i], exponents[i]]).toEqual([f, e]);
  }
  // The first entry as Grisu's reference implementation (double-conversion) has them.
  expect(significands[0]).toBe(0xfa8fd5a0081c0288n);
  expect(exponents[0]).toBe(-1220);
});
