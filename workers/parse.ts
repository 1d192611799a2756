/**
 * Parse worker entry point. Runs in its own process under the broker's memory cap and
 * deadline: reads one versioned request, streams the artifact through the matching
 * adapter, writes one Parquet file per evidence table plus response.json into the
 * request's output directory, and exits. It never touches the control plane or HEAD.
 */
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { constants as bufferConstants } from "node:buffer";
import { gunzipSync } from "node:zlib";
import { adapterByName, detectAdapter } from "../src/adapters/registry.ts";
import { FlameoxError } from "../src/domain/errors.ts";
import { PARSE_PROTOCOL, ParseRequest, type ParseResponse } from "../src/domain/parse-protocol.ts";
import { initParquet, tableBufferToArrow, writeParquet } from "../src/storage/parquet.ts";
import { type } from "arktype";

const HEAD_BYTES = 64 * 1024;
const MAX_LENGTH = bufferConstants.MAX_LENGTH;
const ROWS_PER_PART = 1_000_000;

export async function runParseWorker(requestPath: string): Promise<number> {
  const request = ParseRequest(JSON.parse(await Bun.file(requestPath).text()));
  if (request instanceof type.errors) {
    console.error(`invalid parse request: ${request.summary}`);
    return 2;
  }
  let response: ParseResponse;
  try {
    response = await parse(request);
  } catch (error) {
    response = { protocol: PARSE_PROTOCOL, ok: false, error: toWorkerError(error) };
  }
  const tmp = join(request.output_dir, "response.json.tmp");
  writeFileSync(tmp, JSON.stringify(response));
  renameSync(tmp, join(request.output_dir, "response.json"));
  return 0;
}

async function parse(request: ParseRequest): Promise<ParseResponse> {
  const raw = await Bun.file(request.payload_path).bytes();
  const gzip = raw[0] === 0x1f && raw[1] === 0x8b;
  const bytes = gzip ? gunzipBounded(raw, request.limits.max_decompressed_bytes) : raw;
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, HEAD_BYTES));
  const adapter = request.adapter ? adapterByName(request.adapter) : detectAdapter({ head, displayName: request.display_name });
  if (!adapter) {
    throw new FlameoxError("ARTIFACT_FORMAT_UNKNOWN", `Cannot recognise the format of ${request.display_name}`);
  }
  const evidence = adapter.extract({
    bytes,
    displayName: request.display_name,
    limits: {
      maxEvents: request.limits.max_events,
      maxNestingDepth: request.limits.max_nesting_depth,
      maxArgsBytes: request.limits.max_args_bytes,
    },
  });
  await initParquet();
  const provenance = {
    schema_version: 1,
    run_id: request.provenance.run_id,
    artifact_id: request.provenance.artifact_id,
    evidence_generation_id: request.provenance.generation_id,
    extractor_name: adapter.name,
    extractor_version: adapter.version,
  };
  const tables = [];
  for (const name of adapter.tables) {
    const buffer = evidence.tables[name];
    // Large tables are split into parts: parquet-wasm encodes a whole table inside its
    // 4 GiB linear memory, and smaller parts also bound the worker's peak RSS.
    for (let part = 0, start = 0; part === 0 || start < buffer.rowCount; part++, start += ROWS_PER_PART) {
      const end = Math.min(buffer.rowCount, start + ROWS_PER_PART);
      const file = `${name}.${part}.parquet`;
      await Bun.write(join(request.output_dir, file), writeParquet(tableBufferToArrow(buffer, provenance, { start, end })));
      tables.push({ table: name, part, file, rows: end - start, schema_id: buffer.schema.schemaId });
    }
  }
  return {
    protocol: PARSE_PROTOCOL,
    ok: true,
    adapter: adapter.name,
    adapter_version: adapter.version,
    artifact_kind: adapter.artifactKind,
    media_type: gzip ? "application/gzip" : adapter.mediaType,
    producer: evidence.producer,
    producer_version: evidence.producerVersion,
    compression: gzip ? "gzip" : "none",
    tables,
    limitations: evidence.limitations,
    summary: evidence.summary,
    // Bun, like Node, reports maxRSS in kilobytes.
    peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
  };
}

function gunzipBounded(raw: Uint8Array, maxBytes: number): Uint8Array {
  // One in-memory buffer cannot exceed buffer.constants.MAX_LENGTH (4 GiB); larger
  // budgets need the streaming parsers.
  const budget = Math.min(maxBytes, MAX_LENGTH);
  try {
    return gunzipSync(raw, { maxOutputLength: budget });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new FlameoxError("ARTIFACT_TOO_LARGE", `Cannot decompress artifact: it expands beyond ${budget} bytes`);
    }
    throw new FlameoxError("ARTIFACT_PARSE_FAILED", `Cannot decompress artifact: ${(error as Error).message}`);
  }
}

function toWorkerError(error: unknown): { code: "ARTIFACT_PARSE_FAILED" | "ARTIFACT_TOO_LARGE" | "ARTIFACT_FORMAT_UNKNOWN"; message: string } {
  if (error instanceof FlameoxError && (error.code === "ARTIFACT_TOO_LARGE" || error.code === "ARTIFACT_FORMAT_UNKNOWN")) {
    return { code: error.code, message: error.message };
  }
  if (error instanceof RangeError && /out of memory|allocation failed|invalid array length/i.test(error.message)) {
    return { code: "ARTIFACT_TOO_LARGE", message: `Cannot parse artifact within the worker memory cap: ${error.message}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "ARTIFACT_PARSE_FAILED", message: message.startsWith("Cannot") ? message : `Cannot parse artifact: ${message}` };
}

if (import.meta.main) {
  const requestPath = process.argv[2];
  if (!requestPath) {
    console.error("usage: parse.ts REQUEST.json");
    process.exit(2);
  }
  process.exit(await runParseWorker(requestPath));
}
