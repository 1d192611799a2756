/**
 * Reads verify what they read: a flipped byte anywhere in a published Parquet part is
 * CORPUS_INTEGRITY_FAILED (exit 5), never a different answer and never an internal error.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeHotspots } from "../../src/analysis/hotspots.ts";
import { resolveSubject } from "../../src/analysis/subject.ts";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { isFlameoxError } from "../../src/domain/errors.ts";
import { SAMPLES, cli, tempWorkspace } from "../helpers.ts";

function partsOf(root: string, generationId: string): string[] {
  const manifest = JSON.parse(
    readFileSync(join(root, ".diagnostics", "generations", `${generationId}.json`), "utf8"),
  );
  return manifest.files.map((f: { path: string }) => join(root, ".diagnostics", f.path));
}

function rewrite(path: string, bytes: Uint8Array): void {
  chmodSync(path, 0o644);
  writeFileSync(path, bytes);
}

/** A small deterministic generator, so a failing flip can be replayed. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe("verified reads", () => {
  test("60 random byte flips in evidence parts never change a hotspots answer", async () => {
    const { root, cleanup } = await tempWorkspace();
    try {
      const imported = (
        await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root })
      ).json;
      const parts = partsOf(root, imported.extraction.generation_id);
      // Hotspots reads frame_measurements and frames; flips land only where they are read.
      const read = parts.filter((p) => /\/(frame_measurements|frames)\//.test(p));
      expect(read.length).toBe(2);
      const service = await WorkspaceService.open({ workspace: root });
      // One call as a CLI process makes it: no decoded-part cache, so every call reads the parts.
      const hotspots = async () => {
        const snapshot = service.pin();
        return JSON.stringify(
          await analyzeHotspots(
            snapshot,
            resolveSubject(service.ws, snapshot, imported.artifact_id),
            { limit: 50 },
          ),
        );
      };
      try {
        const baseline = await hotspots();
        const random = lcg(20261201);
        let refused = 0;
        for (let flip = 0; flip < 60; flip++) {
          const path = read[Math.floor(random() * read.length)]!;
          const original = readFileSync(path);
          const damaged = Uint8Array.from(original);
          // Every tenth flip hits the footer (its length and the trailing magic included).
          const at =
            flip % 10 === 9
              ? damaged.length - 1 - Math.floor(random() * 64)
              : Math.floor(random() * damaged.length);
          damaged[at] = damaged[at]! ^ (1 + Math.floor(random() * 255));
          rewrite(path, damaged);
          try {
            const answer = await hotspots();
            expect({ flip, at, path, same: answer === baseline }).toEqual({
              flip,
              at,
              path,
              same: true,
            });
          } catch (error) {
            if (!isFlameoxError(error, "CORPUS_INTEGRITY_FAILED")) throw error;
            refused += 1;
          } finally {
            rewrite(path, original);
          }
        }
        // Every flip changed bytes that hotspots reads, so every one was refused.
        expect(refused).toBe(60);
        // Restored parts are read again (their identity changed, so they were rehashed).
        expect(await hotspots()).toBe(baseline);
      } finally {
        service.close();
      }
    } finally {
      cleanup();
    }
  }, 60_000);

  test("the CLI answers a damaged part with CORPUS_INTEGRITY_FAILED and exit 5, footer or " +
    "body", async () => {
    const { root, cleanup } = await tempWorkspace();
    try {
      const imported = (
        await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root })
      ).json;
      const path = partsOf(root, imported.extraction.generation_id).find((p) =>
        p.includes("/frame_measurements/"),
      )!;
      const original = readFileSync(path);
      for (const at of [original.length - 5, Math.floor(original.length / 2)]) {
        const damaged = Uint8Array.from(original);
        damaged[at] = damaged[at]! ^ 0x10;
        rewrite(path, damaged);
        const hot = await cli(["analyze", "hotspots", imported.artifact_id, "--json"], {
          cwd: root,
        });
        expect(hot.code).toBe(5);
        expect(hot.json.error.code).toBe("CORPUS_INTEGRITY_FAILED");
        expect(hot.json.error.message).not.toContain(root);
      }
      rewrite(path, original.subarray(0, original.length - 100));
      const truncated = await cli(["analyze", "hotspots", imported.artifact_id, "--json"], {
        cwd: root,
      });
      expect(truncated.code).toBe(5);
      expect(truncated.json.error.code).toBe("CORPUS_INTEGRITY_FAILED");
    } finally {
      cleanup();
    }
  }, 60_000);
});
