import { expect, test } from "bun:test";
import {
  STACK_ID_BYTES,
  stackId,
  stackIdBytesOfKey,
  stackIdOfKey,
} from "../../src/domain/frame-id.ts";

test("stack id bytes are the UTF-8 of the stack id, for keys of any length", () => {
  const encoder = new TextEncoder();
  const out = new Uint8Array(STACK_ID_BYTES);
  const cases: [string, string[]][] = [
    ["wall_time", ["fr_a"]],
    ["cpu_time", ["fr_0123456789abcdefghij", "fr_x", "fr_ünïcode"]],
    ["wall_time", Array.from({ length: 300 }, (_, i) => `fr_${i}`)],
  ];
  for (const [metric, frames] of cases) {
    const key = encoder.encode(`${metric}\u0000${frames.join("\u0001")}`);
    const bytes = stackIdBytesOfKey(key, out);
    expect(new TextDecoder().decode(bytes)).toBe(stackIdOfKey(key));
    expect(new TextDecoder().decode(bytes)).toBe(stackId(metric, frames));
  }
});
