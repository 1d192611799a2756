/**
 * Shared shape of the benchmark-sample adapters: parse JSON under the nesting guard, let
 * the format fill a MeasurementWriter, publish only the `measurements` table. Formats
 * differ only in their description (detection included) and in how they walk their document.
 */
import type { AdapterDescription, ExtractInput, ProducerAdapter } from "../adapter.ts";
import { parseJsonPayload, isPlainObject, expectationFailed } from "../json-guard.ts";
import type { CompanionFile } from "../../domain/companion-files.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { MeasurementWriter } from "./measurement-writer.ts";

/** A benchmark format: its description (the format's description.ts) and its reader. */
export interface BenchmarkFormat extends AdapterDescription {
  /** Human name used in error messages ("hyperfine JSON"). */
  label: string;
  /** Walks the parsed document; returns producer identity and summary facts. */
  read(
    document: Record<string, unknown>,
    out: MeasurementWriter,
  ): {
    producer: string;
    producerVersion: string | null;
    summary: Record<string, string | number | boolean | null>;
    /** Files the document declares beside itself (NVBench sample sidecars). */
    companions?: CompanionFile[];
  };
}

export function benchmarkAdapter({
  label,
  read,
  ...description
}: BenchmarkFormat): ProducerAdapter {
  return {
    ...description,
    extract(input: ExtractInput): NormalizedEvidence {
      const { value } = parseJsonPayload(input.bytes, input.limits.maxNestingDepth, label);
      if (!isPlainObject(value)) throw expectationFailed(label, "the document", "an object", value);
      const tables = emptyTables();
      const writer = new MeasurementWriter(tables.measurements, label, input.limits.maxEvents);
      const { producer, producerVersion, summary, companions } = read(value, writer);
      return {
        adapter: description.name,
        adapterVersion: description.version,
        producer,
        producerVersion,
        tables,
        limitations: writer.limitations(),
        summary: { ...summary, measurements: writer.rows },
        ...(companions && companions.length > 0 ? { companions } : {}),
      };
    },
  };
}

/** A finite number or a parse failure naming the field. */
export function numberAt(label: string, field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value))
    throw expectationFailed(label, field, "a finite number", value);
  return value;
}

export function arrayAt(label: string, field: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw expectationFailed(label, field, "an array", value);
  return value;
}
