/**
 * Builds the WASM parsers with the pinned AssemblyScript compiler (a devDependency; no
 * download). The outputs are committed under parsers-wasm/wasm/ so the runtime and
 * `bun build --compile` never need the compiler; tests/unit/wasm-build.test.ts checks that
 * the committed bytes equal a fresh build.
 *
 *   bun parsers-wasm/build.ts            # (re)write parsers-wasm/wasm/*.wasm
 *   bun parsers-wasm/build.ts --check    # exit 1 when a committed module differs, or when the
 *                                        # host's boundary description (abi-check.ts) does not
 * match
 */
import { join } from "node:path";
import { abiMismatches, readAbiSources } from "./abi-check.ts";

/**
 * The slice of the asc API used here. Declared locally: asc's own typings redeclare the global
 * `console` and break type checking of the whole project.
 */
interface Asc {
  main(
    argv: string[],
    options: {
      writeFile: (name: string, contents: Uint8Array | string) => void;
      stderr: unknown;
      stdout: unknown;
    },
  ): Promise<{ error: Error | null }>;
}
const ASC_MODULE = "assemblyscript/asc";
const asc: Asc = ((await import(ASC_MODULE)) as { default: Asc }).default;

const ROOT = import.meta.dir;

/** Each parser: entry file and its fixed linear-memory maximum in 64 KiB pages. */
export const PARSERS = [
  { name: "json-scanner", entry: "assembly/json/index.ts", maximumPages: 3072 }, // 192 MiB
  { name: "proto-scanner", entry: "assembly/proto/index.ts", maximumPages: 3072 },
] as const;

/** Compiles one parser in memory; returns its .wasm bytes. */
export async function compileParser(parser: (typeof PARSERS)[number]): Promise<Uint8Array> {
  let binary: Uint8Array | null = null;
  const stderr: string[] = [];
  const { error } = await asc.main(
    [
      join(ROOT, parser.entry),
      "--outFile", "out.wasm",
      "-O3", "--runtime", "stub", "--noAssert", "--use", "abort=",
      "--initialMemory", "1", "--maximumMemory", String(parser.maximumPages),
      "--enable", "simd",
    ],
    {
      writeFile: (name: string, contents: Uint8Array | string) => {
        if (name.endsWith(".wasm"))
          binary = typeof contents === "string" ? new TextEncoder().encode(contents) : contents;
      },
      stderr: { write: (text: string) => { stderr.push(String(text)); return true; } } as never,
      stdout: { write: () => true } as never,
    },
  );
  if (error || !binary)
    throw new Error(
      `asc failed for ${parser.name}: ${error?.message ?? "no output"}\n${stderr.join("")}`,
    );
  return binary;
}

export function committedPath(name: string): string {
  return join(ROOT, "wasm", `${name}.wasm`);
}

if (import.meta.main) {
  const check = process.argv.includes("--check");
  let differs = 0;
  if (check) {
    const mismatches = abiMismatches(readAbiSources());
    for (const m of mismatches) console.log(`boundary: ${m}`);
    console.log(
      mismatches.length === 0
        ? "boundary: the host's description matches the AssemblyScript source"
        : "boundary: DIFFERS",
    );
    differs += mismatches.length;
  }
  for (const parser of PARSERS) {
    const bytes = await compileParser(parser);
    const path = committedPath(parser.name);
    if (check) {
      const file = Bun.file(path);
      const same =
        (await file.exists()) && Buffer.from(await file.bytes()).equals(Buffer.from(bytes));
      if (!same) differs++;
      console.log(
        `${parser.name}: ${same ? "matches" : "DIFFERS from"} ` +
          `the committed build (${bytes.length} bytes)`,
      );
    } else {
      await Bun.write(path, bytes);
      console.log(`${parser.name}: wrote ${path} (${bytes.length} bytes)`);
    }
  }
  process.exit(differs > 0 ? 1 : 0);
}
