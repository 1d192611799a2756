/**
 * The host's description of the WASM scanners' boundary (init parameters, statuses,
 * error codes, record tags, program modes) matches the AssemblyScript source, and the
 * check notices a change made on one side only.
 */
import { describe, expect, test } from "bun:test";
import { abiMismatches, initParameters, readAbiSources } from "../../parsers-wasm/abi-check.ts";
import { JSON_INIT_PARAMS, PROTO_INIT_PARAMS } from "../../src/adapters/wasm/scanner-abi.ts";

describe("WASM scanner boundary", () => {
  const sources = readAbiSources();

  test("the host's description matches the AssemblyScript source", () => {
    expect(abiMismatches(sources)).toEqual([]);
    expect(initParameters(sources.jsonIndex)).toEqual([...JSON_INIT_PARAMS]);
    expect(initParameters(sources.protoIndex)).toEqual([...PROTO_INIT_PARAMS]);
  });

  test("a renumbered error code is reported", () => {
    const changed = {
      ...sources,
      jsonScanner: sources.jsonScanner.replace(
        "export const ERR_DEPTH: i32 = 3;",
        "export const ERR_DEPTH: i32 = 14;",
      ),
    };
    expect(abiMismatches(changed)).toEqual(["JSON scanner error DEPTH: host 3, module 14"]);
  });

  test("an error code added on the module side only is reported", () => {
    const changed = {
      ...sources,
      protoScanner: sources.protoScanner.replace(
        "export const ERR_WIRE: i32 = 1;",
        "export const ERR_WIRE: i32 = 1;\nexport const ERR_GROUP: i32 = 6;",
      ),
    };
    expect(abiMismatches(changed)).toEqual([
      "protobuf scanner error GROUP: host missing, module 6",
    ]);
  });

  test("reordered init parameters are reported", () => {
    const changed = {
      ...sources,
      protoIndex: sources.protoIndex.replace(
        "softRecords: i32, softText: i32",
        "softText: i32, softRecords: i32",
      ),
    };
    expect(abiMismatches(changed)).toHaveLength(1);
  });

  test("a changed record tag or repair flag is reported", () => {
    const tags = {
      ...sources,
      jsonRecords: sources.jsonRecords.replace(
        "export const TAG_JSON: i32 = 8;",
        "export const TAG_JSON: i32 = 9;",
      ),
    };
    expect(abiMismatches(tags)).toEqual(["JSON record tag TAG_JSON: host 8, module 9"]);
    const repaired = {
      ...sources,
      jsonScanner: sources.jsonScanner.replace(
        "export const ST_REPAIRED: i32 = 16;",
        "export const ST_REPAIRED: i32 = 32;",
      ),
    };
    expect(abiMismatches(repaired)).toEqual(["JSON scanner status REPAIRED: host 16, module 32"]);
  });
});
