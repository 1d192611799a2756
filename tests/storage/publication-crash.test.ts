/**
 * Crash injection at every publication step: the importing process is SIGKILLed at the
 * step; HEAD must still name a complete commit, validate must pass, and the next import
 * must land. Every step starts from a copy of one workspace holding one published import
 * (made once: an import starts a parse worker), so each step costs only its own imports.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PUBLICATION_STEPS } from "../../src/storage/fault-injection.ts";
import { SAMPLES, cli, tempDir, tempWorkspace, type CliResult } from "../helpers.ts";

let template: { root: string; cleanup: () => void };
let first: CliResult;

beforeAll(async () => {
  template = await tempWorkspace();
  first = await cli(["import", join(SAMPLES, "sample-trace.json"), "--json"], {
    cwd: template.root,
  });
}, 60_000);
afterAll(() => template?.cleanup());

describe("publication survives a crash at every step", () => {
  test("the starting workspace holds one published import", () => {
    expect(first.code).toBe(0);
    expect(first.json.extraction.status).toBe("published");
  });

  for (const step of PUBLICATION_STEPS) {
    test(`killed at ${step}`, async () => {
      const { path: root, cleanup } = tempDir();
      try {
        cpSync(template.root, root, { recursive: true });
        const headBefore = readFileSync(
          join(root, ".diagnostics", "corpus", "HEAD"),
          "utf8",
        ).trim();
        expect(headBefore).toBe(first.json.extraction.corpus_commit_id);

        const crashed = await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], {
          cwd: root,
          env: { FLAMEOX_FAULT_INJECT: step },
        });
        expect(crashed.signal).toBe("SIGKILL");

        const headAfter = readFileSync(join(root, ".diagnostics", "corpus", "HEAD"), "utf8").trim();
        const status = await cli(["status", "--json"], { cwd: root });
        expect(status.code).toBe(0);
        if (step === "post_head") {
          expect(headAfter).not.toBe(headBefore);
          expect(status.json.counts.generations).toBe(2);
        } else {
          expect(headAfter).toBe(headBefore);
          expect(status.json.counts.generations).toBe(1);
        }
        const validation = await cli(["validate", "--full", "--json"], { cwd: root });
        expect(validation.json.checks.filter((c: any) => c.status === "failed")).toEqual([]);
        expect(validation.code).toBe(0);

        // Evidence that was published before the crash is unchanged and still answers.
        const hot = await cli(["analyze", "hotspots", first.json.artifact_id, "--json"], {
          cwd: root,
        });
        expect(hot.code).toBe(0);
        expect(hot.json.items.length).toBeGreaterThan(0);

        const next = await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], {
          cwd: root,
        });
        expect(next.code).toBe(0);
        const finalStatus = await cli(["status", "--json"], { cwd: root });
        expect(finalStatus.json.counts.generations).toBe(step === "post_head" ? 3 : 2);
        const after = await cli(["analyze", "hotspots", next.json.artifact_id, "--json"], {
          cwd: root,
        });
        expect(after.json.items.length).toBeGreaterThan(0);
      } finally {
        cleanup();
      }
    });
  }
});
