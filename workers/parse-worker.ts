/**
 * The parse worker (its entry is parse.ts). Runs in its own process under the broker's
 * memory cap and deadline: reads one versioned request, streams the artifact through the
 * matching adapter, writes one Parquet file per evidence table plus response.json into
 * the request's output directory, and exits. It never touches the control plane or HEAD.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADAPTER_ENTRIES, entryByName, mostConfident } from "../src/adapters/adapter-entries.ts";
import { formatsSentence } from "../src/adapters/known-formats.ts";
import { FlameoxError, storageFailure } from "../src/domain/errors.ts";
import type { ParseResponse } from "../src/domain/parse-protocol.ts";
import {
  checkParseRequest,
  PARSE_PROTOCOL,
  type ParseRequest,
  REQUEST_ON_STDIN,
} from "../src/domain/parse-request.ts";
import { extractTables } from "./extract-tables.ts";
import { drainPayload, openPayload } from "./payload-stream.ts";
import { type Landing, landedArtifactId } from "./payload-landing.ts";
import { startEncodePool, useEncodeThread } from "./encode-pool.ts";
import { pieceThreadCount, startPiecePool, usePieceThreads } from "./piece-pool.ts";
import { MemoryGovernor } from "./memory-governor.ts";
import { progressWriter } from "./progress-file.ts";
import { dieWithOwner } from "./owner-death.ts";
import { threadCpuMs } from "./thread-cpu.ts";
import { useNestThread } from "./nest-choice.ts";

const HEAD_BYTES = 64 * 1024;

/**
 * `source`: the request's file, or REQUEST_ON_STDIN (the request comes on stdin once the caller
 * knows it; an empty stdin means there is none). `started`: the worker's start-up (runtime and
 * modules), ms since the process began.
 */
export async function parseWorker(source: string, started: number): Promise<number> {
  await dieWithOwner();
  const text = source === REQUEST_ON_STDIN ? await Bun.stdin.text() : await Bun.file(source).text();
  const requested = performance.now();
  if (text.trim() === "") {
    console.error("no parse request");
    return 2;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    console.error("invalid parse request: not JSON");
    return 2;
  }
  const checked = checkParseRequest(value);
  if ("problem" in checked) {
    console.error(`invalid parse request: ${checked.problem}`);
    return 2;
  }
  const request = checked.request;
  const afterResponse: (() => Promise<unknown>)[] = [];
  let response: ParseResponse;
  try {
    response = await parse(request, { started, requested }, afterResponse);
  } catch (error) {
    response = { protocol: PARSE_PROTOCOL, ok: false, error: toWorkerError(error) };
  }
  const tmp = join(request.output_dir, "response.json.tmp");
  writeFileSync(tmp, JSON.stringify(response));
  renameSync(tmp, join(request.output_dir, "response.json"));
  await Promise.all(afterResponse.map((release) => release()));
  return 0;
}

/**
 * `afterResponse` collects what is released once the response is written: the threads of an
 * extraction that succeeded are idle (every part is written) and stopping them costs the main
 * thread ~60 ms (Bun joins each), which the parent need not wait for.
 */
async function parse(
  request: ParseRequest,
  { started, requested }: { started: number; requested: number },
  afterResponse: (() => Promise<unknown>)[],
): Promise<ParseResponse> {
  // The WASM modules are compiling since the entry (parse.ts) started: parquet-wasm's goes on
  // in the background while the payload opens and the scan starts; the first part to be
  // encoded waits for it.
  // Streamed: decompressed chunk by chunk; only the head is read ahead, for detection.
  const governor = new MemoryGovernor(request.limits.memory_bytes);
  const checkpoint = () => governor.checkpoint();
  const landing: Landing | null = request.landing
    ? { bytes: request.landing.payload_bytes, landedFile: request.landing.landed_file }
    : null;
  const payloadBytes = landing?.bytes ?? statSync(request.payload_path).size;
  const progress = progressWriter(request.output_dir, payloadBytes);
  const payload = await openPayload(
    request.payload_path,
    request.limits.max_decompressed_bytes,
    HEAD_BYTES,
    checkpoint,
    progress.add,
    landing,
  );
  const head = new TextDecoder("utf-8", { fatal: false }).decode(payload.head);
  // Detection reads the formats' descriptions; only the chosen format's parser is loaded.
  const entry = request.adapter
    ? entryByName(request.adapter)
    : mostConfident(ADAPTER_ENTRIES, {
        head,
        headBytes: payload.head,
        displayName: request.display_name,
      });
  if (!entry) {
    // Decompress to the end first: a bomb is ARTIFACT_TOO_LARGE whatever its head looks like.
    await drainPayload(payload.chunks);
    throw new FlameoxError(
      "ARTIFACT_FORMAT_UNKNOWN",
      `Cannot recognise the format ` +
        `of ${request.display_name}. ${formatsSentence(ADAPTER_ENTRIES.map((a) => a.name))}`,
    );
  }
  const adapter = await entry.load();
  const provenanceWith = (artifactId: string) => ({
    schema_version: 1,
    run_id: request.provenance.run_id,
    artifact_id: artifactId,
    evidence_generation_id: request.provenance.generation_id,
    extractor_name: adapter.name,
    extractor_version: adapter.version,
  });
  // The first part to be written waits for a landing payload's id; the parse goes on meanwhile.
  const provenance = landing
    ? landedArtifactId(landing).then(provenanceWith)
    : provenanceWith(request.provenance.artifact_id ?? "");
  if (provenance instanceof Promise) provenance.catch(() => {});
  // Tables are written in Parquet parts: parquet-wasm encodes a whole table inside its
  // 4 GiB linear memory, and smaller parts also bound the worker's peak RSS.
  // Parts are encoded on a tinypool thread (the second core) when the budget has room for it.
  const extractStarted = performance.now();
  const pool = startEncodePool(
    useEncodeThread(request.limits.memory_bytes, payloadBytes, payload.compression !== "none"),
  );
  // A large plain payload can be scanned in pieces, on every core, by adapters that can cut their
  // format.
  const threads = pieceThreadCount(
    adapter.pieceScan,
    pool.threaded,
    request.limits.scan_threads ?? -1,
  );
  const pieced =
    threads > 0 &&
    usePieceThreads(request.limits.memory_bytes, payloadBytes, payload.compression !== "none");
  // Piece threads read byte ranges anywhere in the payload: they start once it has landed.
  if (pieced && landing) await provenance;
  const piecePool = pieced ? startPiecePool(request.payload_path, payloadBytes, threads) : null;
  const { evidence, tables, nestThreads } = await extractTables(adapter, payload, {
    displayName: request.display_name,
    payloadBytes,
    limits: {
      maxEvents: request.limits.max_events,
      maxNestingDepth: request.limits.max_nesting_depth,
      maxArgsBytes: request.limits.max_args_bytes,
    },
    context: request.context ?? null,
    outputDir: request.output_dir,
    provenance,
    encode: pool.encode,
    runOffload: pool.runOffload,
    // A payload worth a second thread is worth a third: nesting runs beside the rows.
    nestThreads: useNestThread(request.limits.nest_thread ?? -1, pool.threaded),
    pieces: piecePool?.pieces,
    checkpoint,
    passEnded: () => governor.release(),
  }).then(
    (extracted) => {
      afterResponse.push(pool.close, async () => piecePool?.close());
      return extracted;
    },
    // A failed extraction may leave parts being encoded: they stop before the error answers.
    async (error: unknown) => {
      await Promise.all([pool.close(), piecePool?.close()]);
      throw error;
    },
  );
  // Nothing is answered for bytes the parent has not announced as landed and registered.
  await provenance;
  progress.flush();
  const parserCpu = threadCpuMs();
  const encodeCpu = await pool.threadCpu();
  return {
    protocol: PARSE_PROTOCOL,
    ok: true,
    adapter: adapter.name,
    adapter_version: adapter.version,
    artifact_kind: adapter.artifactKind,
    media_type:
      payload.compression === "gzip"
        ? "application/gzip"
        : payload.compression === "zstd"
          ? "application/zstd"
          : adapter.mediaType,
    producer: evidence.producer,
    producer_version: evidence.producerVersion,
    compression: payload.compression,
    tables,
    limitations: evidence.limitations,
    summary: evidence.summary,
    ...(evidence.companions && evidence.companions.length > 0
      ? { companions: evidence.companions }
      : {}),
    peak_rss_bytes: ownPeakRss(),
    encode_threads: pool.threaded ? 1 : 0,
    scan_threads: piecePool?.usedThreads ?? 0,
    nest_threads: nestThreads,
    stages_ms: {
      start: ms(started),
      // A worker started before its request was known waited this long for it.
      request_wait: ms(requested - started),
      open_detect: ms(extractStarted - requested),
      extract: ms(performance.now() - extractStarted),
      encode_inline: ms(pool.ms.inline),
      encode_thread: ms(pool.ms.thread),
      ...(encodeCpu === undefined ? {} : { encode_thread_cpu: encodeCpu }),
      encode_wait: ms(pool.ms.waited),
      ...(parserCpu === undefined ? {} : { parser_cpu: parserCpu }),
      total: ms(performance.now()),
    },
  };
}

const ms = (value: number): number => Math.round(value * 10) / 10;

function toWorkerError(error: unknown): {
  code: "ARTIFACT_PARSE_FAILED" | "ARTIFACT_TOO_LARGE" | "ARTIFACT_FORMAT_UNKNOWN" | "STORAGE_FULL";
  message: string;
} {
  // A full disk under the output directory is not the artifact's fault.
  const storage = storageFailure(error);
  if (storage?.code === "STORAGE_FULL") return { code: "STORAGE_FULL", message: storage.message };
  if (
    error instanceof FlameoxError &&
    (error.code === "ARTIFACT_TOO_LARGE" || error.code === "ARTIFACT_FORMAT_UNKNOWN")
  ) {
    return { code: error.code, message: error.message };
  }
  if (
    error instanceof RangeError &&
    /out of memory|allocation failed|invalid array length/i.test(error.message)
  ) {
    return {
      code: "ARTIFACT_TOO_LARGE",
      message: `Cannot parse artifact within the worker memory cap: ${error.message}`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: "ARTIFACT_PARSE_FAILED",
    message: message.startsWith("Cannot") ? message : `Cannot parse artifact: ${message}`,
  };
}

/**
 * This process's own peak RSS (VmHWM). Not getrusage's maxRSS: Linux folds the spawning
 * process's RSS into an exec'd child's figure, which made the worker report the CLI's or
 * the MCP server's size whenever that was larger.
 */
function ownPeakRss(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "latin1"));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // Not Linux: fall through.
  }
  // Bun, like Node, reports maxRSS in kilobytes.
  return process.resourceUsage().maxRSS * 1024;
}
