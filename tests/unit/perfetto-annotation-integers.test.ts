/**
 * Perfetto debug annotations' integer values (uint_value, field 3; int_value, field 4): read
 * as a number while exact and as their decimal otherwise, at every varint length, including
 * the ten-byte negatives, overlong encodings and cut-off varints (which must still fail).
 */
import { describe, expect, test } from "bun:test";
import { ProtoWriter } from "../../fixtures/generators/proto-writer.ts";
import { annotation } from "../../src/adapters/perfetto/debug-annotations.ts";
import { SequenceState } from "../../src/adapters/perfetto/sequence-state.ts";
import { FlameoxError } from "../../src/domain/errors.ts";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** What the value is by the format's rules, computed with bigints only. */
function expected(raw: bigint, signed: boolean): number | string {
  const v = signed ? BigInt.asIntN(64, raw) : BigInt.asUintN(64, raw);
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString();
}

function read(bytes: Uint8Array): unknown {
  return annotation(bytes, new SequenceState())[1];
}

describe("Perfetto annotation integers", () => {
  const values: bigint[] = [0n, 1n, 127n, 128n, 300n, -1n, -2n, -(2n ** 63n), 2n ** 63n - 1n];
  for (let bits = 7n; bits <= 64n; bits += 7n) values.push(2n ** bits - 1n, 2n ** bits);
  values.push(2n ** 49n - 1n, 2n ** 49n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n);

  for (const signed of [false, true])
    test(`${signed ? "int_value" : "uint_value"} at every varint length`, () => {
      for (const value of values) {
        const bytes = new ProtoWriter()
          .string(10, "k")
          .uint(signed ? 4 : 3, value)
          .finish();
        expect(read(bytes)).toBe(expected(value, signed));
      }
    });

  test("an overlong short value (a zero continuation byte) reads as its value", () => {
    // 5 written as 0x85 0x00: two bytes, still short.
    const bytes = Uint8Array.from([0x52, 1, 0x6b, 0x18, 0x85, 0x00]);
    expect(read(bytes)).toBe(5);
  });

  test("a varint cut off inside a short value or a long one fails as malformed", () => {
    for (const cut of [
      [0x18, 0x85],
      [0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
      [0x20, 0x80, 0x80, 0x80],
    ]) {
      const bytes = Uint8Array.from(cut);
      expect(() => read(bytes)).toThrow(FlameoxError);
    }
  });
});
