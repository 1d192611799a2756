/**
 * Crash injection at every publication step: the importing process is SIGKILLed at the
 * step; HEAD must still name a complete commit, validate must pass, and the next import
 * must land.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PUBLICATION_STEPS } from "../../src/storage/fault-injection.ts";
import { SAMPLES, cli, tempWorkspace } from "../helpers.ts";

describe("publication survives a crash at every step", () => {
  for (const step of PUBLICATION_STEPS) {
    test(`killed at ${step}`, async () => {
      const { root, cleanup } = await tempWorkspace();
      try {
        const first = await cli(["import", join(SAMPLES, "sample-trace.json"), "--json"], { cwd: root });
        expect(first.code).toBe(0);
        const headBefore = readFileSync(join(root, ".diagnostics", "corpus", "HEAD"), "utf8").trim();

        const crashed = await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root, env: { FLAMEOX_FAULT_INJECT: step } });
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
        const hot = await cli(["analyze", "hotspots", first.json.artifact_id, "--json"], { cwd: root });
        expect(hot.code).toBe(0);
        expect(hot.json.items.length).toBeGreaterThan(0);

        const next = await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root });
        expect(next.code).toBe(0);
        const finalStatus = await cli(["status", "--json"], { cwd: root });
        expect(finalStatus.json.counts.generations).toBe(step === "post_head" ? 3 : 2);
        const after = await cli(["analyze", "hotspots", next.json.artifact_id, "--json"], { cwd: root });
        expect(after.json.items.length).toBeGreaterThan(0);
      } finally {
        cleanup();
      }
    });
  }
});
