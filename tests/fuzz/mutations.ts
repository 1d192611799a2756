/**
 * Deterministic mutations of seed payloads for the parser fuzz lane: truncation, bit
 * flips, byte insertions and deletions, spliced repeats, invalid UTF-8, huge protobuf
 * lengths and deep JSON nesting.
 */
import { mulberry32 } from "../../fixtures/generators/prng.ts";

export type Mutation = (input: Uint8Array, random: () => number) => Uint8Array;

const at = (n: number, random: () => number) => Math.floor(random() * Math.max(1, n));

/**
 * A copy: a Buffer's `slice` is a view, and mutating it would change the seed for every later
 * input.
 */
const copy = (b: Uint8Array) => new Uint8Array(b);

const MUTATIONS: Record<string, Mutation> = {
  truncate: (b, r) => copy(b.subarray(0, at(b.length, r))),
  bitFlips: (b, r) => {
    const out = copy(b);
    for (let k = 1 + at(8, r); k > 0 && out.length > 0; k--)
      out[at(out.length, r)]! ^= 1 << at(8, r);
    return out;
  },
  insertBytes: (b, r) => {
    const i = at(b.length + 1, r);
    const extra = Uint8Array.from({ length: 1 + at(16, r) }, () => at(256, r));
    return concat(b.subarray(0, i), extra, b.subarray(i));
  },
  deleteRange: (b, r) => {
    const i = at(b.length, r);
    return concat(b.subarray(0, i), b.subarray(Math.min(b.length, i + 1 + at(64, r))));
  },
  repeatRange: (b, r) => {
    const i = at(b.length, r);
    const part = b.subarray(i, Math.min(b.length, i + 1 + at(256, r)));
    return concat(b.subarray(0, i), part, part, part, b.subarray(i));
  },
  invalidUtf8: (b, r) => {
    const i = at(b.length + 1, r);
    const bad = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]][
      at(5, r)
    ]!;
    return concat(b.subarray(0, i), Uint8Array.from(bad), b.subarray(i));
  },
  hugeLength: (b, r) => {
    // A length-delimited field claiming ~4 GiB (protobuf) right after a random point.
    const i = at(b.length + 1, r);
    return concat(
      b.subarray(0, i),
      Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
      b.subarray(i),
    );
  },
  deepNesting: (b, r) => {
    const depth = 200 + at(20_000, r);
    const open = new TextEncoder().encode(r() < 0.5 ? "[".repeat(depth) : '{"a":'.repeat(depth));
    const i = at(b.length + 1, r);
    return concat(b.subarray(0, i), open, b.subarray(i));
  },
  hugeNumber: (b, r) => {
    const i = at(b.length + 1, r);
    return concat(
      b.subarray(0, i),
      new TextEncoder().encode("1" + "0".repeat(5000) + "e999999"),
      b.subarray(i),
    );
  },
};

export const MUTATION_NAMES = Object.keys(MUTATIONS);

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** The i-th mutated input of a seed set (same inputs for the same seed). */
export function* mutatedInputs(
  seeds: Uint8Array[],
  count: number,
  seed: number,
): Generator<{ name: string; bytes: Uint8Array }> {
  const random = mulberry32(seed);
  for (let i = 0; i < count; i++) {
    const base = seeds[i % seeds.length]!;
    const name = MUTATION_NAMES[at(MUTATION_NAMES.length, random)]!;
    let bytes = MUTATIONS[name]!(base, random);
    // Every fourth input stacks a second mutation.
    if (i % 4 === 3)
      bytes = MUTATIONS[MUTATION_NAMES[at(MUTATION_NAMES.length, random)]!]!(bytes, random);
    yield { name, bytes };
  }
}
