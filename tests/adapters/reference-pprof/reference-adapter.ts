/**
 * The reference implementation of the `pprof` adapter's parse: the whole profile decoded
 * by protobufjs from profile.proto (parse-pprof.ts), then production's normalizer.
 * Production reads with the WASM wire scanner on both entry points; the equivalence tests
 * compare it with this.
 */
import type { ProducerAdapter } from "../../../src/adapters/adapter.ts";
import { pprofAdapter } from "../../../src/adapters/pprof/adapter.ts";
import { pprofEvidence } from "../../../src/adapters/pprof/normalize-pprof.ts";
import { parsePprof } from "./parse-pprof.ts";

export const pprofReference: ProducerAdapter = {
  ...pprofAdapter,
  extract: (input) =>
    pprofEvidence(parsePprof(input.bytes), input.limits.maxEvents, {
      name: pprofAdapter.name,
      version: pprofAdapter.version,
    }),
};
