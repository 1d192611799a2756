/** The fuzz lane's mutations never change their seeds, whatever the seed's type. */
import { expect, test } from "bun:test";
import { mutatedInputs } from "./mutations.ts";

test("mutating Buffer and Uint8Array seeds leaves them as they were", () => {
  const seeds = [
    Buffer.from("SIMPLEPERF seed bytes, a Buffer whose slice() is a view"),
    new TextEncoder().encode("a Uint8Array seed"),
  ];
  const before = seeds.map((s) => Buffer.from(s).toString("hex"));
  for (const { bytes } of mutatedInputs(seeds, 400, 7))
    expect(bytes.length).toBeGreaterThanOrEqual(0);
  expect(seeds.map((s) => Buffer.from(s).toString("hex"))).toEqual(before);
});
