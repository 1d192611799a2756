/**
 * An import starts its parse worker while the file is still being copied into staging, and
 * the worker follows the copy (workers/payload-landing.ts). These tests hold it to what the
 * serial import guaranteed: the evidence published is that of exactly the registered bytes,
 * and a copy that fails (the source changes, the caller cancels) stops the worker, records no
 * extraction and leaves nothing behind. The worker is started before the copy (an early
 * extraction), its request sent on its stdin once the copy begins; one never sent its request
 * is stopped with its staging.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  abandonEarlyExtraction,
  beginEarlyExtraction,
  extractArtifact,
} from "../../src/application/extract-artifact.ts";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { artifactPayloadPath } from "../../src/storage/workspace-paths.ts";
import { hexFromArtifactId } from "../../src/domain/ids.ts";
import { generateChromeTrace } from "../../fixtures/generators/chrome-trace.ts";
import { parseWorkersUnder, tempDir, tempWorkspace } from "../helpers.ts";

let service: WorkspaceService;
let root: string;
let cleanup: () => void;
const inputs = tempDir();
const MB = 1024 * 1024;
// A trace followed by whitespace (still one JSON document): a copy of 56 MiB in 1 MiB chunks, long
// enough for the worker to start while it runs, with little to parse.
const TRACE_BYTES = 8 * MB;
const PADDING_BYTES = 48 * MB;
let trace: { path: string; events: number };

beforeAll(async () => {
  const ws = await tempWorkspace();
  ({ root, cleanup } = ws);
  service = await WorkspaceService.open({ workspace: root });
  const path = join(inputs.path, "landing.trace.json");
  trace = { path, events: (await generateChromeTrace(path, TRACE_BYTES)).events };
  appendFileSync(path, new Uint8Array(PADDING_BYTES).fill(0x20));
}, 60_000);

afterAll(() => {
  service.close();
  cleanup();
  inputs.cleanup();
});

/** Parse workers still running for this workspace. */
const workersOfWorkspace = (): number[] => parseWorkersUnder(root);

function extractionsOf(runId: string): number {
  const row = service.ws.control.db
    .query("SELECT count(*) AS n FROM extractions WHERE run_id = ?")
    .get(runId) as { n: number };
  return row.n;
}

describe("an import parses its file while copying it", () => {
  test("the evidence is of exactly the registered bytes, stored read-only", async () => {
    const phases: string[] = [];
    let followed = false;
    const result = await service.importArtifact({
      path: trace.path,
      onProgress: (phase) => {
        if (phases.at(-1) !== phase) phases.push(phase);
        if (phase === "copying" && workersOfWorkspace().length > 0) followed = true;
      },
    });
    // The worker ran while the file was being copied.
    expect(followed).toBe(true);
    expect(result.extraction.status).toBe("published");
    expect(result.byte_length).toBe(statSync(trace.path).size);
    // The rows of the stored artifact extracted on its own, after the fact: none read twice,
    // none lost where the worker caught up with the copy.
    const serial = await extractArtifact(service.ws, {
      runId: result.run_id,
      artifactId: result.artifact_id,
      registrationId: result.registration_id,
      displayName: "landing.trace.json",
      adapter: null,
    });
    expect(result.extraction.tables).toEqual(serial.tables);
    expect(result.extraction.tables.trace_events).toBeGreaterThan(trace.events / 2);
    // The copy's progress comes first, then the parse's; never back to copying.
    expect(phases[0]).toBe("copying");
    expect(phases.lastIndexOf("copying")).toBeLessThan(phases.indexOf("extracting"));
    expect(phases.at(-1)).toBe("completed");
    const stored = artifactPayloadPath(service.ws.paths, hexFromArtifactId(result.artifact_id));
    expect(statSync(stored).mode & 0o777).toBe(0o444);
    const digest = new Bun.CryptoHasher("sha256").update(readFileSync(stored)).digest("hex");
    expect(`sha256:${digest}`).toBe(result.artifact_id);
    expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
    // The same bytes again: deduplicated, and the stored object untouched.
    const again = await service.importArtifact({ path: trace.path });
    expect(again.deduplicated).toBe(true);
    expect(again.extraction.tables).toEqual(serial.tables);
    expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
    expect((await service.validate({ full: true })).ok).toBe(true);
  }, 120_000);

  test("an import cancelled before its copy begins is cancelled, and nothing is left", async () => {
    const cancelled = new AbortController();
    cancelled.abort();
    const outcome = await service
      .importArtifact({ path: trace.path, signal: cancelled.signal })
      .then(
        () => null,
        (error) => error,
      );
    expect(outcome).toMatchObject({ code: "PROCESS_CANCELLED" });
    expect(extractionsOf(outcome.runId as string)).toBe(0);
    expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
    expect(workersOfWorkspace()).toEqual([]);
  }, 60_000);

  test("an early extraction not taken over is stopped, and its staging removed", async () => {
    const early = await beginEarlyExtraction(service.ws, 1024);
    // Started at once, it loads its modules and waits for its request.
    expect(workersOfWorkspace()).toHaveLength(1);
    expect(readdirSync(join(root, ".diagnostics", "staging"))).toHaveLength(1);
    await abandonEarlyExtraction(early);
    expect((await early.worker.result).termination).toEqual({ kind: "cancelled" });
    expect(workersOfWorkspace()).toEqual([]);
    expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
  }, 60_000);

  test("a link is refused before any worker starts, and nothing is left", async () => {
    const link = join(inputs.path, "link.trace.json");
    symlinkSync(trace.path, link);
    const outcome = await service.importArtifact({ path: link }).then(
      () => null,
      (error) => error,
    );
    expect(outcome).toMatchObject({ code: "ARTIFACT_REFUSED" });
    expect(extractionsOf(outcome.runId as string)).toBe(0);
    expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
    expect(workersOfWorkspace()).toEqual([]);
  }, 60_000);

  const failures = [
    {
      name: "a source that grows while it is copied is refused",
      code: "ARTIFACT_REFUSED",
      during: (path: string) => appendFileSync(path, "\n"),
      signal: undefined as AbortController | undefined,
    },
    {
      name: "an import cancelled while it copies is cancelled",
      code: "PROCESS_CANCELLED",
      during: () => failures[1]!.signal?.abort(),
      signal: new AbortController(),
    },
  ];
  for (const failure of failures)
    test(`${failure.name}: the worker is stopped, no extraction recorded, nothing left`, async () => {
      const path = join(inputs.path, `copy-of-${failure.code}.json`);
      appendFileSync(path, readFileSync(trace.path));
      let failed = false;
      const outcome = await service
        .importArtifact({
          path,
          signal: failure.signal?.signal,
          onProgress: (phase) => {
            // Once the worker is running and following the copy.
            if (phase === "copying" && !failed && workersOfWorkspace().length > 0) {
              failed = true;
              failure.during(path);
            }
          },
        })
        .then(
          () => null,
          (error) => error,
        );
      expect(failed).toBe(true);
      expect(outcome).toMatchObject({ code: failure.code });
      const runId = outcome.runId as string;
      const run = service.ws.runs.get(runId);
      expect(run).toMatchObject({ extraction_status: "not_requested" });
      expect(["failed", "cancelled"]).toContain(run?.capture_status);
      expect(extractionsOf(runId)).toBe(0);
      expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
      expect(workersOfWorkspace()).toEqual([]);
      expect((await service.validate({ full: true })).ok).toBe(true);
    }, 120_000);
});
