/**
 * Comparing an import scanned in pieces with one scanned sequentially: everything the
 * import keeps as plain comparable data, and errors as `CODE: message`.
 */
import type { PayloadFile } from "../../src/adapters/adapter.ts";
import type { EvidenceTableName } from "../../src/domain/evidence-schema.ts";
import { bufferRows, type StreamRun, streamedTableRows } from "./stream-harness.ts";

/**
 * Every row of every table (streamed ones from their batches, in order), the summary and the
 * limitations.
 */
export function importOutcome(run: StreamRun, streamed: EvidenceTableName[]) {
  const { tables, ...rest } = run.evidence;
  const buffered = Object.fromEntries(
    Object.entries(tables).map(([name, buffer]) => [name, bufferRows(buffer!)]),
  );
  return {
    streamed: Object.fromEntries(streamed.map((t) => [t, streamedTableRows(run, t)])),
    buffered,
    rest,
  };
}

export async function settle<T>(work: Promise<T>): Promise<{ ok: T } | { error: string }> {
  try {
    return { ok: await work };
  } catch (error) {
    return { error: `${(error as { code?: string }).code}: ${(error as Error).message}` };
  }
}

/** An in-memory payload read by range, as the worker reads the payload file. */
export function memoryFile(
  bytes: Uint8Array,
): PayloadFile & { range(range: [number, number]): Uint8Array } {
  const range = ([start, end]: [number, number]) => bytes.slice(start, end);
  return { size: bytes.length, read: async (start, end) => range([start, end]), range };
}
