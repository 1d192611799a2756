/**
 * TracePacket.compressed_packets (field 50): a zlib-deflated `Trace` message, that is a
 * run of ordinary packets. The tracing service writes them when the trace config asks for
 * compression (`compression_type: COMPRESSION_TYPE_DEFLATE`; Android and the perfetto CLI
 * use it). Each group is inflated (bounded) and scanned by a second scanner instance, whose
 * records go through the same packet handling as the outer stream's, in stream order.
 */
import type * as Zlib from "node:zlib";
import { FlameoxError } from "../../domain/errors.ts";
import { parseFailed } from "../json-guard.ts";
import type { ProtoBatch } from "../wasm/proto-batch.ts";
import { ProtoScanner } from "../wasm/proto-scanner.ts";
import { PERFETTO_FORMAT } from "./debug-annotations.ts";
import { perfettoProgram } from "./trace-program.ts";

/**
 * The inflated size one group may reach. A group holds one batch of the tracing service's
 * buffered packets; a group inflating past this is treated as a decompression bomb.
 */
export const MAX_INFLATED_GROUP_BYTES = 64 << 20;

export class CompressedPackets {
  private scanner: ProtoScanner | null = null;
  private expanding = false;
  groups = 0;
  inflatedBytes = 0;

  constructor(private readonly maxDepth: number) {}

  /** Inflates one group and hands its records to `onBatch` (the outer import's). */
  expand(deflated: Uint8Array, onBatch: (batch: ProtoBatch) => void): void {
    if (this.expanding)
      throw parseFailed(PERFETTO_FORMAT, "compressed packets nested inside compressed packets");
    const packets = inflate(deflated);
    this.groups++;
    this.inflatedBytes += packets.length;
    this.scanner ??= ProtoScanner.openSync(perfettoProgram(), {
      format: PERFETTO_FORMAT,
      maxDepth: this.maxDepth,
    });
    this.expanding = true;
    try {
      this.scanner.scanWhole(packets, onBatch);
    } finally {
      this.expanding = false;
    }
  }

  /** Lets the scanner's linear memory go once the trace is scanned (a later group opens one). */
  release(): void {
    this.scanner = null;
  }
}

function inflate(deflated: Uint8Array): Uint8Array {
  // Loaded at the first group: node:zlib is 30-40 ms of a worker's start, and most traces
  // have no compressed packets.
  const { inflateSync } = require("node:zlib") as typeof Zlib;
  try {
    return inflateSync(deflated, { maxOutputLength: MAX_INFLATED_GROUP_BYTES });
  } catch (cause) {
    if ((cause as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new FlameoxError(
        "ARTIFACT_TOO_LARGE",
        `Cannot import ${PERFETTO_FORMAT}: a compressed packet group inflates ` +
          `past ${MAX_INFLATED_GROUP_BYTES} bytes`,
        {
          remediation: ["Check that the trace is not corrupt"],
          details: { limit: MAX_INFLATED_GROUP_BYTES },
        },
      );
    }
    throw parseFailed(
      PERFETTO_FORMAT,
      `a compressed packet group is not valid zlib data (${(cause as Error).message})`,
      cause,
    );
  }
}
