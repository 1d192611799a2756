/**
 * The host's one description of the WASM scanners' boundary: the parameters of `init`
 * by name, the run/finish statuses and the error codes. Each mirrors a declaration in
 * parsers-wasm/assembly (`init` in json/index.ts and proto/index.ts, `ST_*` and `ERR_*`
 * in json/scanner.ts and proto/scanner.ts); parsers-wasm/abi-check.ts compares them
 * with the AssemblyScript source in `bun parsers-wasm/build.ts --check` and in the unit
 * tests, so a parameter or code added on one side only fails the build.
 */

/** `init`'s parameters of the protobuf scanner, in declaration order. */
export const PROTO_INIT_PARAMS = [
  "maxDepth",
  "inputBytes",
  "stringBytes",
  "captureBytes",
  "outRecordsCap",
  "textCap",
  "softRecords",
  "softText",
  "dictSlotsLog2",
  "dictArena",
  "newStringsCap",
] as const;

/**
 * `init`'s parameters of the JSON scanner: the protobuf scanner's (both modules set up the same
 * core) and the length past which JSON texts are cut, which protobuf texts never are.
 */
export const JSON_INIT_PARAMS = [...PROTO_INIT_PARAMS, "truncateAt"] as const;

type Params = readonly string[];
/** A scanner's configuration: one number per `init` parameter, by name. */
export type ScannerConfig<P extends Params> = { readonly [K in P[number]]: number };
/** `init`'s positional arguments: as many numbers as parameters. */
export type InitArgs<P extends Params> = { [K in keyof P]: number };

export type JsonScannerConfig = ScannerConfig<typeof JSON_INIT_PARAMS>;
export type ProtoScannerConfig = ScannerConfig<typeof PROTO_INIT_PARAMS>;

/** The configuration as `init`'s positional arguments, in the order the module declares them. */
export function initArgs<P extends Params>(params: P, config: ScannerConfig<P>): InitArgs<P> {
  return params.map((name: P[number]) => config[name]) as InitArgs<P>;
}

/** What `run` and `finish` return (ST_* in both scanners). */
export const ScanStatus = { NEED_INPUT: 0, BATCH: 1, DONE: 2, ERROR: 3 } as const;
/**
 * Added to DONE by the JSON scanner's `finish` when it closed a cut-off top-level array
 * (ST_REPAIRED).
 */
export const SCAN_REPAIRED = 16;

/** `errorCode()` of the JSON scanner after ERROR (ERR_* in json/scanner.ts). */
export const JsonScanError = {
  UNEXPECTED: 1,
  END: 2,
  DEPTH: 3,
  CONTROL: 4,
  ESCAPE: 5,
  NUMBER_LONG: 6,
  STRING_LONG: 7,
  CAPTURE_LONG: 8,
  TEXT_FULL: 9,
  EMPTY: 11,
  RECORDS_DEEP: 12,
  STRINGS_FULL: 13,
} as const;
export type JsonScanError = (typeof JsonScanError)[keyof typeof JsonScanError];

/**
 * `betweenElements()` of the JSON scanner (BETWEEN_* in json/scanner.ts): where the input so far
 * ended within an array.
 */
export const JsonBetween = { NONE: 0, FIRST: 1, AFTER: 2 } as const;

/** `errorCode()` of the protobuf scanner after ERROR (ERR_* in proto/scanner.ts). */
export const ProtoScanError = {
  WIRE: 1,
  END: 2,
  DEPTH: 3,
  LENGTH: 4,
  VARINT: 5,
  STRING_LONG: 7,
  CAPTURE_LONG: 8,
  TEXT_FULL: 9,
  STRINGS_FULL: 13,
} as const;
export type ProtoScanError = (typeof ProtoScanError)[keyof typeof ProtoScanError];
