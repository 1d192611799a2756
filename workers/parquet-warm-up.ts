/**
 * Warms parquet-wasm's encoder on the encode thread before the first real part. JSC runs a
 * fresh WASM instance's functions in its interpreter and compiles them (BBQ, then OMG) only
 * once they are hot, so the first part of an import took 300-520 ms to encode where every
 * later one took ~95 ms (100 MB Chrome trace, one 8 MiB trace_events part); meanwhile the
 * parser, finding the thread busy, encoded the next part itself, cold too. The thread is
 * mostly idle while a trace is scanned, so it encodes a small synthetic part of each big
 * table's shape as soon as it starts: the same column types, dictionary columns and writer
 * settings as evidence, with values varied enough that the encodings' hot paths run.
 */
import type { ColumnBatch, ColumnVector } from "../src/domain/column-batch.ts";
import {
  type ColumnSpec,
  EVIDENCE_SCHEMAS,
  type EvidenceTableName,
} from "../src/domain/evidence-schema.ts";
import type { Provenance } from "../src/storage/evidence-metadata.ts";
import { DICTIONARY_COLUMNS } from "../src/storage/parquet-writer.ts";
import { encodePartBytes } from "./table-parts.ts";

/** Tables whose parts dominate encoding: traces' events and stacks, spans. */
export const WARM_UP_TABLES: readonly EvidenceTableName[] = [
  "trace_events",
  "stacks",
  "otel_spans",
];
/** Rows of each synthetic part. */
export const WARM_UP_ROWS = 2048;

const PROVENANCE: Provenance = {
  schema_version: 1,
  run_id: "warm-up",
  artifact_id: "warm-up",
  evidence_generation_id: "warm-up",
  extractor_name: "warm-up",
  extractor_version: "0",
};
const DICTIONARY = new Set(DICTIONARY_COLUMNS);
const encoder = new TextEncoder();

/** A small deterministic generator: the same warm-up every time. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
}

function texts(count: number, next: () => number, distinct: number): Uint8Array[] {
  const values = Array.from({ length: Math.min(count, distinct) }, (_, i) =>
    encoder.encode(`${i.toString(36)}:${next().toString(16)}${"x".repeat(next() % 40)}`),
  );
  return Array.from({ length: count }, (_, i) => values[distinct < count ? next() % distinct : i]!);
}

function utf8Vector(cells: Uint8Array[]): { offsets: Int32Array; data: Uint8Array } {
  const offsets = new Int32Array(cells.length + 1);
  for (let i = 0; i < cells.length; i++) offsets[i + 1] = offsets[i]! + cells[i]!.length;
  const data = new Uint8Array(offsets[cells.length]!);
  cells.forEach((cell, i) => data.set(cell, offsets[i]!));
  return { offsets, data };
}

function vector(spec: ColumnSpec, rows: number, next: () => number): ColumnVector {
  const none = { valid: null, nullCount: 0 };
  switch (spec.type) {
    case "int64": {
      const values = new BigInt64Array(rows);
      const words = new Uint32Array(values.buffer);
      let at = 1_000_000;
      for (let i = 0; i < rows; i++) {
        at += next() % 100_000;
        words[2 * i] = at;
        words[2 * i + 1] = 0x17b;
      }
      return { type: "int64", values, ...none };
    }
    case "int32":
      return {
        type: "int32",
        values: Int32Array.from({ length: rows }, () => next() % 64),
        ...none,
      };
    case "float64":
      return {
        type: "float64",
        values: Float64Array.from({ length: rows }, () => next() / 7),
        ...none,
      };
    case "bool":
      return {
        type: "bool",
        values: Uint8Array.from({ length: (rows + 7) >> 3 }, () => next()),
        ...none,
      };
    case "list_utf8": {
      const listOffsets = new Int32Array(rows + 1);
      for (let i = 0; i < rows; i++) listOffsets[i + 1] = listOffsets[i]! + 1 + (next() % 12);
      const items = utf8Vector(texts(listOffsets[rows]!, next, 64));
      return { type: "list_utf8", listOffsets, ...items, ...none };
    }
    case "utf8": {
      if (!DICTIONARY.has(spec.name))
        return { type: "utf8", ...utf8Vector(texts(rows, next, rows)), ...none };
      const dictionary = utf8Vector(texts(64, next, 64));
      return {
        type: "utf8_dict",
        indices: Int32Array.from({ length: rows }, () => next() % 64),
        dictOffsets: dictionary.offsets,
        dictData: dictionary.data,
        ...none,
      };
    }
  }
}

/** A synthetic batch of `table`'s columns. */
export function warmUpBatch(table: EvidenceTableName, rows = WARM_UP_ROWS): ColumnBatch {
  const next = lcg(rows);
  const columns: ColumnBatch["columns"] = {};
  for (const spec of EVIDENCE_SCHEMAS[table].columns) columns[spec.name] = vector(spec, rows, next);
  return { table, length: rows, columns };
}

/** Encodes (and drops) one synthetic part of each table; parquet-wasm must be initialised. */
export function warmUpParquet(tables = WARM_UP_TABLES, rows = WARM_UP_ROWS): number {
  let bytes = 0;
  for (const table of tables)
    bytes += encodePartBytes({
      table,
      provenance: PROVENANCE,
      batches: [warmUpBatch(table, rows)],
    }).length;
  return bytes;
}
