/** What the two OTLP adapters declare, and their detection, without their parsers. */
import type { AdapterDescription } from "../adapter.ts";
import type { EvidenceTableName } from "../../domain/evidence-schema.ts";
import { detectOtlpJson, detectOtlpProto } from "./detect.ts";

/** The tables both OTLP adapters publish. */
const OTEL_TABLES: EvidenceTableName[] = [
  "otel_resources",
  "otel_scopes",
  "otel_spans",
  "otel_span_events",
  "otel_span_links",
];

export const otlpJsonDescription: AdapterDescription = {
  name: "otlp-json",
  version: "1.0.0",
  tables: OTEL_TABLES,
  artifactKind: "otlp_trace",
  mediaType: "application/json",
  detect: detectOtlpJson,
};

export const otlpProtoDescription: AdapterDescription = {
  name: "otlp-protobuf",
  version: "1.0.0",
  tables: OTEL_TABLES,
  artifactKind: "otlp_trace",
  mediaType: "application/x-protobuf",
  detect: detectOtlpProto,
};
