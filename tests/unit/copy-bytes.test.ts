/**
 * copyBytes copies a range between plain Uint8Arrays by loop below ~24 bytes and through
 * Buffer's ranged copy above: both must copy exactly the range, at any offsets, touching
 * nothing else.
 */
import { expect, test } from "bun:test";
import { copyBytes } from "../../src/adapters/common/growable.ts";
import { mulberry32 } from "../../fixtures/generators/prng.ts";

test("copyBytes copies exactly the range at every length and offset, and nothing else", () => {
  const random = mulberry32(7);
  const source = Uint8Array.from({ length: 4096 }, () => Math.floor(random() * 256));
  for (let trial = 0; trial < 2000; trial++) {
    const length = trial < 400 ? trial % 400 : Math.floor(random() * 1024);
    const from = Math.floor(random() * (source.length - length));
    const target = new Uint8Array(length + 64).fill(0xee);
    const to = Math.floor(random() * 64);
    const expected = target.slice();
    expected.set(source.slice(from, from + length), to);
    copyBytes(source, from, length, target, to);
    expect(target).toEqual(expected);
  }
});
