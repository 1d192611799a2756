/**
 * Reference implementations of the OTLP adapters' parse: JSON.parse (parse-json.ts) for
 * `otlp-json`, protobufjs (parse-proto.ts) for `otlp-protobuf`, then production's row
 * building. Production reads with the WASM scanners on both entry points; the
 * equivalence tests compare it with these.
 */
import { described, type ReferenceAdapter } from "../adapter-harness.ts";
import { otlpJsonAdapter } from "../../../src/adapters/otlp/json-adapter.ts";
import { isLengthPrefixed } from "../../../src/adapters/otlp/detect.ts";
import { collectRows, unframeWhole } from "./collect-rows.ts";
import { otlpProtoAdapter } from "../../../src/adapters/otlp/proto-adapter.ts";
import { readOtlpJson } from "./parse-json.ts";
import { readOtlpProto } from "./parse-proto.ts";

export const otlpJsonReference: ReferenceAdapter = {
  ...described(otlpJsonAdapter),
  extract: (input) =>
    collectRows(
      input.limits.maxEvents,
      { name: otlpJsonAdapter.name, version: otlpJsonAdapter.version },
      (rows) => readOtlpJson(input.bytes, input.limits, rows),
    ),
};

export const otlpProtoReference: ReferenceAdapter = {
  ...described(otlpProtoAdapter),
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
