/**
 * Checks the host's description of the scanners' boundary (src/adapters/wasm/
 * scanner-abi.ts, and the tag and mode constants the host reads records with) against
 * the AssemblyScript source it mirrors: `init`'s parameter names and order, every
 * `ST_*`/`ERR_*` code, and every host constant whose name the module also exports.
 * Run by `bun parsers-wasm/build.ts --check` and tests/unit/wasm-abi.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as jsonBatch from "../src/adapters/wasm/json-batch.ts";
import * as jsonProgram from "../src/adapters/wasm/json-program.ts";
import * as protoProgram from "../src/adapters/wasm/proto-program.ts";
import {
  JSON_INIT_PARAMS,
  JsonBetween,
  JsonScanError,
  PROTO_INIT_PARAMS,
  ProtoScanError,
  SCAN_REPAIRED,
  ScanStatus,
} from "../src/adapters/wasm/scanner-abi.ts";

/** The AssemblyScript files the boundary is declared in, by role. */
export interface AbiSources {
  jsonIndex: string;
  jsonScanner: string;
  jsonRecords: string;
  jsonProgram: string;
  protoIndex: string;
  protoScanner: string;
  protoProgram: string;
}

const FILES: Record<keyof AbiSources, string> = {
  jsonIndex: "json/index.ts",
  jsonScanner: "json/scanner.ts",
  jsonRecords: "json/records.ts",
  jsonProgram: "json/program.ts",
  protoIndex: "proto/index.ts",
  protoScanner: "proto/scanner.ts",
  protoProgram: "proto/program.ts",
};

export function readAbiSources(root = join(import.meta.dir, "assembly")): AbiSources {
  return Object.fromEntries(
    Object.entries(FILES).map(([role, file]) => [role, readFileSync(join(root, file), "utf8")]),
  ) as unknown as AbiSources;
}

/**
 * `export const NAME: i32 = N;` declarations (decimal literals only, which is all the boundary
 * uses).
 */
export function exportedConstants(source: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of source.matchAll(/^export const (\w+): i32 = (-?\d+);/gm))
    out.set(m[1]!, Number(m[2]));
  return out;
}

/** The parameter names of `export function init(...)`. */
export function initParameters(source: string): string[] {
  const m = /^export function init\(([^)]*)\)/m.exec(source);
  if (!m) return [];
  return m[1]!.split(",").map((p) => p.trim()).filter(Boolean).map((p) => p.split(":")[0]!.trim());
}

/** The prefixed constants as { NAME_WITHOUT_PREFIX: value }. */
function prefixed(constants: Map<string, number>, prefix: string): Record<string, number> {
  return Object.fromEntries(
    [...constants]
      .filter(([name]) => name.startsWith(prefix))
      .map(([name, v]) => [name.slice(prefix.length), v]),
  );
}

function sameRecord(
  what: string,
  host: Record<string, number>,
  module: Record<string, number>,
  out: string[],
): void {
  for (const name of new Set([...Object.keys(host), ...Object.keys(module)])) {
    if (host[name] !== module[name])
      out.push(
        `${what} ${name}: host ${host[name] ?? "missing"}, module ${module[name] ?? "missing"}`,
      );
  }
}

function sameNamed(
  what: string,
  host: Record<string, unknown>,
  module: Map<string, number>,
  out: string[],
): void {
  for (const [name, value] of Object.entries(host)) {
    if (typeof value === "number" && module.has(name) && module.get(name) !== value)
      out.push(`${what} ${name}: host ${value}, module ${module.get(name)}`);
  }
}

/** Every difference between the host's description and the module source; empty when they agree. */
export function abiMismatches(src: AbiSources): string[] {
  const out: string[] = [];
  const params = (what: string, host: readonly string[], module: string[]) => {
    if (host.join(",") !== module.join(","))
      out.push(`${what} init parameters: host (${host.join(", ")}), module (${module.join(", ")})`);
  };
  params("JSON scanner", JSON_INIT_PARAMS, initParameters(src.jsonIndex));
  params("protobuf scanner", PROTO_INIT_PARAMS, initParameters(src.protoIndex));
  const jsonScanner = exportedConstants(src.jsonScanner);
  const protoScanner = exportedConstants(src.protoScanner);
  const { REPAIRED, ...jsonStatus } = prefixed(jsonScanner, "ST_");
  sameRecord("JSON scanner status", ScanStatus, jsonStatus, out);
  sameRecord("JSON scanner status", { REPAIRED: SCAN_REPAIRED }, { REPAIRED: REPAIRED! }, out);
  sameRecord("protobuf scanner status", ScanStatus, prefixed(protoScanner, "ST_"), out);
  sameRecord("JSON scanner error", JsonScanError, prefixed(jsonScanner, "ERR_"), out);
  sameRecord("JSON scanner array position", JsonBetween, prefixed(jsonScanner, "BETWEEN_"), out);
  sameRecord("protobuf scanner error", ProtoScanError, prefixed(protoScanner, "ERR_"), out);
  sameNamed("JSON record tag", jsonBatch, exportedConstants(src.jsonRecords), out);
  sameNamed("JSON program mode", jsonProgram, exportedConstants(src.jsonProgram), out);
  sameNamed("protobuf program constant", protoProgram, exportedConstants(src.protoProgram), out);
  return out;
}
