/**
 * uuidText (packet-children.ts): a uint64 slot's decimal text through a double where that is
 * exact, else through a bigint: both must be the bigint's text at and around 2^53 and 2^64.
 */
import { expect, test } from "bun:test";
import { uuidText } from "../../src/adapters/perfetto/packet-children.ts";
import type { ProtoBatch } from "../../src/adapters/wasm/proto-batch.ts";

/** The slot reads of a ProtoBatch over one stored 64-bit value (as the WASM scanner stores it). */
function batchOf(value: bigint): ProtoBatch {
  const words = new Int32Array(BigInt64Array.of(BigInt.asIntN(64, value)).buffer);
  const low = words[0]! >>> 0;
  const high = words[1]!;
  return {
    high: () => high,
    num: () => high * 0x1_0000_0000 + low,
    ubig: () => BigInt.asUintN(64, value),
  } as unknown as ProtoBatch;
}

test("a uuid's text is its uint64 decimal at every magnitude", () => {
  const values = [0n, 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n];
  values.push(2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n, 0x1234_5678_9abc_def0n);
  for (let k = 0n; k < 64n; k++) values.push(2n ** k + 3n, 2n ** k - 1n);
  for (const value of values) {
    const v = BigInt.asUintN(64, value);
    expect(uuidText(batchOf(v), 0, 0)).toBe(v.toString());
  }
});
