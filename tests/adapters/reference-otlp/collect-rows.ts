/**
 * The reference OTLP adapters' row collection: production's row building (OtlpRows) with
 * every batch kept and read back into whole tables, and the length prefixes of the Collector's
 * file exporter taken off the payload held whole.
 */
import type { ColumnBatch } from "../../../src/domain/column-batch.ts";
import { emptyTables, type NormalizedEvidence } from "../../../src/domain/normalized-evidence.ts";
import { appendBatch } from "../../../src/adapters/common/batch-table-buffer.ts";
import { parseFailed } from "../../../src/adapters/json-guard.ts";
import { otlpEvidence } from "../../../src/adapters/otlp/otlp-evidence.ts";
import { OtlpRows } from "../../../src/adapters/otlp/otlp-rows.ts";
import { OTLP_PROTO_FORMAT } from "../../../src/adapters/otlp/proto-values.ts";

export async function collectRows(
  maxSpans: number,
  adapter: { name: string; version: string },
  read: (rows: OtlpRows) => void,
): Promise<NormalizedEvidence> {
  const batches: ColumnBatch[] = [];
  const rows = new OtlpRows({ writeBatch: async (batch) => void batches.push(batch) }, maxSpans);
  read(rows);
  await rows.flush(true);
  const { tables: partial, streamed: _, ...rest } = otlpEvidence(rows, adapter);
  const tables = { ...emptyTables(), ...partial };
  for (const batch of batches) appendBatch(tables[batch.table], batch);
  return { ...rest, tables };
}

const PREFIX_BYTES = 4;

/** The bodies of a whole length-prefixed payload, concatenated. */
export function unframeWhole(bytes: Uint8Array): Uint8Array {
  const truncated = () =>
    parseFailed(OTLP_PROTO_FORMAT, `a length-prefixed request is cut off at byte ${bytes.length}`);
  const parts: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + PREFIX_BYTES > bytes.length) throw truncated();
    const length = new DataView(bytes.buffer, bytes.byteOffset + at, PREFIX_BYTES).getUint32(0);
    at += PREFIX_BYTES;
    if (at + length > bytes.length) throw truncated();
    parts.push(bytes.subarray(at, at + length));
    at += length;
  }
  return Buffer.concat(parts);
}
