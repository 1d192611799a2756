/**
 * The committed WASM parsers are exactly what the pinned AssemblyScript compiler builds
 * from parsers-wasm/assembly (so the bytes that run are reviewable source), and each
 * module declares a fixed memory maximum and imports nothing beyond its host functions.
 */
import { describe, expect, test } from "bun:test";
import { committedPath, compileParser, PARSERS } from "../../parsers-wasm/build.ts";

describe("WASM parser build", () => {
  for (const parser of PARSERS) {
    test(`${parser.name}.wasm matches a fresh build`, async () => {
      const fresh = await compileParser(parser);
      const committed = await Bun.file(committedPath(parser.name)).bytes();
      expect(Buffer.from(committed).equals(Buffer.from(fresh))).toBe(true);
    }, 60_000);

    test(`${parser.name}.wasm has a fixed memory maximum and only env imports`, async () => {
      const module = new WebAssembly.Module(await Bun.file(committedPath(parser.name)).bytes());
      for (const imported of WebAssembly.Module.imports(module))
        expect(imported.module).toBe("env");
      const bytes = await Bun.file(committedPath(parser.name)).bytes();
      expect(memoryMaximumPages(bytes)).toBe(parser.maximumPages);
    });
  }
});

/** The maximum of the module's (single, defined) memory, read from the memory section. */
function memoryMaximumPages(bytes: Uint8Array): number | null {
  let at = 8;
  const leb = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++]!;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  };
  while (at < bytes.length) {
    const id = bytes[at++]!;
    const size = leb();
    const end = at + size;
    if (id === 5) {
      leb(); // count
      const flags = leb();
      leb(); // minimum
      return (flags & 1) === 1 ? leb() : null;
    }
    at = end;
  }
  return null;
}
