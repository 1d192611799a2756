/**
 * Reference implementations of the OTLP adapters' parse: JSON.parse (parse-json.ts) for
 * `otlp-json`, then production's row building. Production scans with the WASM JSON
 * scanner on both entry points; the equivalence tests compare it with this.
 */
import type { ProducerAdapter } from "../../../src/adapters/adapter.ts";
import { collectRows } from "../../../src/adapters/otlp/collect-rows.ts";
import { otlpJsonAdapter } from "../../../src/adapters/otlp/json-adapter.ts";
import { readOtlpJson } from "./parse-json.ts";

export const otlpJsonReference: ProducerAdapter = {
  ...otlpJsonAdapter,
  extract: (input) => collectRows(input.limits.maxEvents, { name: otlpJsonAdapter.name, version: otlpJsonAdapter.version }, (rows) => readOtlpJson(input.bytes, input.limits, rows)),
};
