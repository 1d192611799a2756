/**
 * The `gecko` adapter: Firefox Profiler files, both Gecko's raw profile (`meta.version`
 * 3 and later, as Firefox writes it, also inside Firefox's old devtools export) and the
 * profiler's processed format (`meta.preprocessedProfileVersion`, also samply's output):
 * threads, samples with their weights, frame/func/resource tables and markers.
 *
 * The file streams through the WASM JSON scanner (gecko-program.ts describes what it
 * extracts); no JSON tree of the document is ever built. A thread's reference tables
 * (strings, frames, funcs, stacks) are held while its samples and markers are read, since
 * either may come first in the thread's object; samples and markers wait in typed columns
 * (spilled to scratch files when large) until their thread ends, and are then folded into
 * stack aggregates and trace events and dropped.
 */
import type { ProducerAdapter, StreamExtractInput, StreamedEvidence } from "../adapter.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import { tableBufferToBatch } from "../common/table-buffer-batch.ts";
import { skipByteOrderMark } from "../wasm/byte-order-mark.ts";
import { JsonScanner, type JsonScanOptions } from "../wasm/json-scanner.ts";
import { SPILL_BLOCK } from "./cell-column.ts";
import { geckoDescription } from "./description.ts";
import { GeckoDocument } from "./gecko-document.ts";
import { GeckoEvidence } from "./gecko-evidence.ts";
import { geckoProgram } from "./gecko-program.ts";
import { GECKO_FORMAT } from "./gecko-thread.ts";

const SELF = { name: geckoDescription.name, version: geckoDescription.version };

const scanOptions = (maxDepth: number): JsonScanOptions => ({
  format: GECKO_FORMAT,
  maxDepth,
  truncateJsonAt: 1 << 30,
});

export const geckoAdapter: ProducerAdapter = {
  ...geckoDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const pending: TableBuffer[] = [];
    const evidence = new GeckoEvidence(
      { spill: input.spill, maxStacksInMemory: input.maxStacksInMemory },
      input.limits.maxEvents,
      (events) => pending.push(events),
    );
    // Tests lower the block (spoolRunEvents) to exercise spilled columns.
    const doc = new GeckoDocument(
      evidence,
      input.spill ?? null,
      input.limits.maxNestingDepth,
      input.spoolRunEvents ?? SPILL_BLOCK,
      input.limits.maxEvents,
    );
    const write = async () => {
      while (pending.length > 0) await input.sink.writeBatch(tableBufferToBatch(pending.shift()!));
    };
    try {
      const scanner = await JsonScanner.open(
        geckoProgram(),
        scanOptions(input.limits.maxNestingDepth),
      );
      for await (const chunk of skipByteOrderMark(input.chunks)) {
        scanner.push(chunk, doc.records.onBatch);
        await write();
      }
      scanner.finish(false, doc.records.onBatch);
      const facts = doc.finish();
      evidence.handOver();
      await write();
      const tables = await evidence.out.emitStreamed(input.sink);
      return {
        adapter: SELF.name,
        adapterVersion: SELF.version,
        producer: facts.product,
        producerVersion: null,
        tables: { ...tables, tracks: evidence.tracks },
        streamed: ["stacks", "trace_events"],
        ...evidence.limitationsAndSummary(facts, doc.counts),
      };
    } finally {
      doc.dispose();
    }
  },
};
