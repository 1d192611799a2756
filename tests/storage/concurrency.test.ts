/** Two processes importing at once both land, in either order, and nothing is lost. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SAMPLES, cli, tempWorkspace } from "../helpers.ts";

describe("concurrent imports", () => {
  test("two processes importing at once both land in HEAD", async () => {
    const { root, cleanup } = await tempWorkspace();
    try {
      const [a, b] = await Promise.all([
        cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root }),
        cli(["import", join(SAMPLES, "sample-trace.json"), "--json"], { cwd: root }),
      ]);
      expect(a.code).toBe(0);
      expect(b.code).toBe(0);
      const status = await cli(["status", "--json"], { cwd: root });
      expect(status.json.counts.runs).toBe(2);
      expect(status.json.counts.generations).toBe(2);
      expect(status.json.catalog.in_sync).toBe(true);
      // The later commit's parent is the earlier one: commits serialized, none lost.
      const commits = [a.json.extraction.corpus_commit_id, b.json.extraction.corpus_commit_id];
      expect(commits).toContain(status.json.corpus_commit_id);
      for (const r of [a, b]) {
        const hot = await cli(["analyze", "hotspots", r.json.artifact_id, "--json"], { cwd: root });
        expect(hot.json.items.length).toBeGreaterThan(0);
      }
      expect((await cli(["validate", "--json"], { cwd: root })).json.ok).toBe(true);
    } finally {
      cleanup();
    }
  });
});
