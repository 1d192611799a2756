/**
 * The reference implementation of the `pprof` adapter's parse: the whole profile decoded
 * by protobufjs from profile.proto (parse-pprof.ts), then production's normalizer.
 * Production reads with the WASM wire scanner on both entry points; the equivalence tests
 * compare it with this.
 */
import { described, type ReferenceAdapter } from "../adapter-harness.ts";
import { pprofAdapter } from "../../../src/adapters/pprof/adapter.ts";
import { pprofEvidence } from "../../../src/adapters/pprof/normalize-pprof.ts";
import { parsePprof } from "./parse-pprof.ts";

export const pprofReference: ReferenceAdapter = {
  ...described(pprofAdapter),
  extract: (input) =>
    pprofEvidence(parsePprof(input.bytes), input.limits.maxEvents, {
      name: pprofAdapter.name,
      version: pprofAdapter.version,
    }),
};
