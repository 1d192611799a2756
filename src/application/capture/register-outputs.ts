/**
 * Registers what a capture produced to its run: stdout and stderr (process_output, kept
 * up to the cap and flagged partial beyond it), then each native artifact the adapter
 * recognised in the output directory. Output files are untrusted: only regular files
 * directly in the directory are considered, and each is copied through the hardened
 * staging path (no symlinks, no growth while copying). Outputs a caller's extension
 * claims (execution-extension.ts) are registered once, under the extension's producer.
 */
import { closeSync, constants, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { ADAPTER_ENTRIES } from "../../adapters/adapter-entries.ts";
import type { Collected, CollectedArtifact } from "../../adapters/capture/capture-adapter.ts";
import { captureAdapterByName } from "../../adapters/capture/registry.ts";
import type { SinkResult } from "../../broker/output-sink.ts";
import { EVIDENCE_TABLE_NAMES } from "../../domain/evidence-schema.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { asFlameoxError } from "../../domain/errors.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { registerFile, registerStaged } from "../register-artifact.ts";
import type { CapturedArtifact } from "./capture-result.ts";
import type { CapturePlan } from "./capture-plan.ts";
import type { ExtensionOutput } from "./execution-extension.ts";
import type { CaptureDirs, ProcessOutcome } from "./run-capture.ts";

export interface RegisteredOutputs {
  artifacts: CapturedArtifact[];
  /** Registered artifacts with the format adapter that extracts them. */
  extractable: { artifact: CapturedArtifact; extractor: string }[];
  summary: Record<string, unknown> | null;
  limitations: Limitation[];
}

export async function registerOutputs(
  ws: Workspace,
  plan: CapturePlan,
  runId: string,
  dirs: CaptureDirs,
  outcome: ProcessOutcome,
  extensionOutputs: readonly ExtensionOutput[] = [],
): Promise<RegisteredOutputs> {
  const limitations: Limitation[] = [];
  const artifacts: CapturedArtifact[] = [];
  for (const [role, sink] of [
    ["stdout", outcome.result.output.stdout],
    ["stderr", outcome.result.output.stderr],
  ] as const) {
    artifacts.push(await registerStream(ws, runId, role, sink, limitations));
  }
  const files = outputFiles(dirs.outDir, limitations);
  const adapter = captureAdapterByName(plan.adapter.name)!;
  const collected: Collected = adapter.collect({
    files,
    read: (name, maxBytes) => readHead(join(dirs.outDir, name), maxBytes),
    termination: outcome.termination.kind,
    postSteps: outcome.postSteps,
    producer: plan.producer,
    extractors: ADAPTER_ENTRIES.map((a) => a.name),
    tables: EVIDENCE_TABLE_NAMES,
  });
  limitations.push(...collected.limitations);
  const extractable: RegisteredOutputs["extractable"] = [];
  const claimed = new Set(extensionOutputs.map((o) => o.file));
  const items = [
    ...collected.artifacts
      .filter((item) => !claimed.has(item.file))
      .map((item) => ({ ...item, producer: plan.producer })),
    ...extensionOutputs,
  ];
  for (const item of items) {
    const registered = await registerCollected(ws, runId, dirs, item, limitations);
    if (!registered) continue;
    artifacts.push(registered);
    if (item.extractor) extractable.push({ artifact: registered, extractor: item.extractor });
  }
  return { artifacts, extractable, summary: collected.summary, limitations };
}

async function registerStream(
  ws: Workspace,
  runId: string,
  role: "stdout" | "stderr",
  sink: SinkResult,
  limitations: Limitation[],
): Promise<CapturedArtifact> {
  const partial = sink.truncated || !sink.complete;
  if (sink.truncated)
    limitations.push({
      code: `${role}_truncated`,
      message:
        `${role} exceeded the output cap: the first ${sink.keptBytes} of ${sink.seenBytes} ` +
        `bytes are kept`,
    });
  if (!sink.complete)
    limitations.push({
      code: `${role}_incomplete`,
      message:
        `${role} was still held open by a descendant after cleanup; ` +
        "what arrived before is kept",
    });
  const meta = {
    runId,
    displayName: role,
    kind: "process_output",
    mediaType: "text/plain",
    role,
    producer: "flameox.broker",
    producerVersion: "1",
    sensitivity: "internal" as const,
  };
  const registered = await registerStaged(
    ws,
    { sha256Hex: sink.sha256Hex, byteLength: sink.keptBytes, stagedPath: sink.path! },
    meta,
  );
  return {
    ...registered,
    display_name: role,
    kind: "process_output",
    role,
    media_type: "text/plain",
    partial,
    produced_bytes: sink.seenBytes,
  };
}

async function registerCollected(
  ws: Workspace,
  runId: string,
  dirs: CaptureDirs,
  item: CollectedArtifact & { producer: { name: string; version: string | null } },
  limitations: Limitation[],
): Promise<CapturedArtifact | null> {
  try {
    const meta = {
      runId,
      displayName: item.displayName,
      kind: item.kind,
      mediaType: item.mediaType,
      role: "output",
      producer: item.producer.name,
      producerVersion: item.producer.version,
      sensitivity: "internal" as const,
    };
    const registered = await registerFile(ws, join(dirs.outDir, item.file), dirs.stagingDir, meta);
    return {
      ...registered,
      display_name: item.displayName,
      kind: item.kind,
      role: "output",
      media_type: item.mediaType,
      partial: false,
      produced_bytes: registered.byte_length,
    };
  } catch (error) {
    const failure = asFlameoxError(error);
    limitations.push({
      code: "artifact_not_registered",
      message: `${item.displayName} was not registered: ${failure.message}`,
    });
    return null;
  }
}

/**
 * Regular files directly in the output directory; anything else is named in a limitation and
 * ignored.
 */
function outputFiles(dir: string, limitations: Limitation[]): { name: string; size: number }[] {
  const out: { name: string; size: number }[] = [];
  let ignored = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) out.push({ name: entry.name, size: statSync(join(dir, entry.name)).size });
    else ignored += 1;
  }
  if (ignored > 0)
    limitations.push({
      code: "output_entries_ignored",
      message:
        `${ignored} entr${ignored === 1 ? "y" : "ies"} of the output directory were not ` +
        `regular files and were ignored`,
    });
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function readHead(path: string, maxBytes: number): Uint8Array {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const buffer = new Uint8Array(Math.min(maxBytes, statSync(path).size));
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
