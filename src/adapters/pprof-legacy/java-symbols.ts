/**
 * The symbol section that ends legacy Java profiles: one `0x<address> <description>`
 * line per frame the agent saw, where the description is `function (File.java:line)`,
 * `function (path/to/lib.so)`, a JIT stub, or a bare state name such as `GC` or `VM`
 * (legacy_java_profile.go parseJavaLocations). Lines of other shapes are ignored.
 */
import type { LegacySymbol } from "./legacy-profile.ts";
import { TextLines } from "./text-lines.ts";

/** Real symbol lines are short; longer ones are skipped rather than fed to the regexps below. */
const MAX_LINE = 4096;
const LOCATION = /^\s*0x([0-9a-fA-F]+)\s+(.*)$/;
const FILE_LINE = /^(.*)\s+\((.+):(-?\d+)\)$/;
const PATH = /^(.*)\s+\((.*)\)$/;
const MAX_ADDRESS = (1n << 64n) - 1n;

function describe(text: string): { name: string; file: string; line: number } {
  const fileLine = FILE_LINE.exec(text);
  if (fileLine) {
    const line = Number(fileLine[3]);
    return {
      name: fileLine[1]!,
      file: fileLine[2]!,
      line: Number.isSafeInteger(line) && line > 0 ? line : 0,
    };
  }
  // Without file:line it is a shared library; only its base name is worth keeping.
  const path = PATH.exec(text);
  if (path) return { name: path[1]!, file: path[2]!.split("/").pop()!, line: 0 };
  if (text.includes("generated stub/JIT")) return { name: "STUB", file: "", line: 0 };
  // The agent's internal states ("GC", "VM") are the whole description.
  return { name: text, file: "", line: 0 };
}

export function parseJavaSymbols(text: string): Map<bigint, LegacySymbol> {
  const symbols = new Map<bigint, LegacySymbol>();
  // Go keeps one Function per name: the file of its first line wins.
  const fileOfName = new Map<string, string>();
  const lines = new TextLines(text);
  for (let raw = lines.next(); raw !== null; raw = lines.next()) {
    const line = raw.trim();
    if (line === "" || line.length > MAX_LINE) continue;
    const location = LOCATION.exec(line);
    if (!location) continue;
    const address = BigInt("0x" + location[1]);
    if (address > MAX_ADDRESS) continue;
    const symbol = describe(location[2]!.trim());
    if (!fileOfName.has(symbol.name)) fileOfName.set(symbol.name, symbol.file);
    symbols.set(address, { ...symbol, file: fileOfName.get(symbol.name)! });
  }
  return symbols;
}
