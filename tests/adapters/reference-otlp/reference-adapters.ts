/**
 * Reference implementations of the OTLP adapters' parse: JSON.parse (parse-json.ts) for
 * `otlp-json`, protobufjs (parse-proto.ts) for `otlp-protobuf`, then production's row
 * building. Production reads with the WASM scanners on both entry points; the
 * equivalence tests compare it with these.
 */
import type { ProducerAdapter } from "../../../src/adapters/adapter.ts";
import { collectRows } from "../../../src/adapters/otlp/collect-rows.ts";
import { otlpJsonAdapter } from "../../../src/adapters/otlp/json-adapter.ts";
import { isLengthPrefixed, unframeWhole } from "../../../src/adapters/otlp/length-prefixed.ts";
import { otlpProtoAdapter } from "../../../src/adapters/otlp/proto-adapter.ts";
import { readOtlpJson } from "./parse-json.ts";
import { readOtlpProto } from "./parse-proto.ts";

export const otlpJsonReference: ProducerAdapter = {
  ...otlpJsonAdapter,
  extract: (input) =>
    collectRows(
      input.limits.maxEvents,
      { name: otlpJsonAdapter.name, version: otlpJsonAdapter.version },
      (rows) => readOtlpJson(input.bytes, input.limits, rows),
    ),
};

export const otlpProtoReference: ProducerAdapter = {
  ...otlpProtoAdapter,
  extract(input) {
    const bytes = isLengthPrefixed(input.bytes.subarray(0, 5))
      ? unframeWhole(input.bytes)
      : input.bytes;
    return collectRows(
      input.limits.maxEvents,
      { name: otlpProtoAdapter.name, version: otlpProtoAdapter.version },
      (rows) => readOtlpProto(bytes, rows),
    );
  },
};
