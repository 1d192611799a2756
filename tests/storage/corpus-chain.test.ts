/**
 * validate checks the whole chain: a control plane that lost writes (its WAL) and a HEAD
 * rolled back to an older valid commit are failures, `catalog rebuild` refuses to bless
 * them, and `recover --rebuild-from-corpus` repairs both from the immutable corpus.
 * Each case damages its own copy of one workspace that holds one import (made once: an
 * import starts a parse worker).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SAMPLES, cli, tempDir, tempWorkspace, type CliResult } from "../helpers.ts";

const failedChecks = (report: any) =>
  report.checks.filter((c: any) => c.status === "failed").map((c: any) => c.check);

let template: { root: string; cleanup: () => void };
let firstImport: CliResult;

beforeAll(async () => {
  template = await tempWorkspace();
  firstImport = await cli(["import", join(SAMPLES, "sample-trace.json"), "--json"], {
    cwd: template.root,
  });
}, 60_000);
afterAll(() => template?.cleanup());

/** A copy of the workspace holding sample-trace.json's import. */
function workspaceWithOneImport(): { root: string; cleanup: () => void } {
  expect(firstImport.code).toBe(0);
  const { path: root, cleanup } = tempDir();
  cpSync(template.root, root, { recursive: true });
  return { root, cleanup };
}

describe("corpus chain against the control plane", () => {
  test("a control plane that lost its WAL fails validation and is restored from the " +
    "corpus", async () => {
    const { root, cleanup } = workspaceWithOneImport();
    try {
      const control = join(root, ".diagnostics", "control.sqlite");
      const first = firstImport.json;
      // The state the file held before the WAL's later transactions were checkpointed into it.
      copyFileSync(control, join(root, "control.before"));
      const second = (
        await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root })
      ).json;
      // Lose the WAL: the database goes back to what the main file held.
      copyFileSync(join(root, "control.before"), control);
      for (const suffix of ["-wal", "-shm"]) rmSync(control + suffix, { force: true });

      for (const level of [[], ["--full"]]) {
        const validation = await cli(["validate", ...level, "--json"], { cwd: root });
        expect(validation.code).toBe(1);
        expect(failedChecks(validation.json)).toEqual(["control_plane_rows"]);
      }
      const rebuild = await cli(["catalog", "rebuild", "--json"], { cwd: root });
      expect(rebuild.code).toBe(5);
      expect(rebuild.json.error.code).toBe("CORPUS_INTEGRITY_FAILED");

      const repaired = await cli(["recover", "--rebuild-from-corpus", "--json"], { cwd: root });
      expect(repaired.code).toBe(0);
      expect(repaired.json.rebuild.runs_restored).toEqual([second.run_id]);
      expect(repaired.json.rebuild.artifacts_restored).toEqual([second.artifact_id]);
      expect(repaired.json.rebuild.extractions_restored).toBe(1);
      const after = await cli(["validate", "--full", "--json"], { cwd: root });
      expect(after.json.checks.filter((c: any) => c.status !== "passed")).toEqual([]);
      const run = (await cli(["runs", "show", second.run_id, "--json"], { cwd: root })).json;
      expect(run.generation_ids).toEqual([second.extraction.generation_id]);
      expect(run.artifact_ids).toEqual([second.artifact_id]);
      expect(
        (await cli(["analyze", "hotspots", second.artifact_id, "--json"], { cwd: root })).json.items
          .length,
      ).toBeGreaterThan(0);
      expect((await cli(["status", "--json"], { cwd: root })).json.catalog.in_sync).toBe(true);
      expect(first.run_id).not.toBe(second.run_id);
    } finally {
      cleanup();
    }
  }, 90_000);

  test("a HEAD rolled back to an older valid commit fails validation and is moved forward " +
    "again", async () => {
    const { root, cleanup } = workspaceWithOneImport();
    try {
      const head = join(root, ".diagnostics", "corpus", "HEAD");
      const older = readFileSync(head, "utf8");
      const newest = (
        await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root })
      ).json;
      const newestHead = readFileSync(head, "utf8");
      writeFileSync(head, older);

      const validation = await cli(["validate", "--json"], { cwd: root });
      expect(validation.code).toBe(1);
      expect(failedChecks(validation.json)).toEqual(["head_log"]);
      const status = (await cli(["status", "--json"], { cwd: root })).json;
      expect(status.catalog.in_sync).toBe(false);
      expect(status.warnings.join(" ")).toContain("newest HEAD");
      expect((await cli(["catalog", "rebuild", "--json"], { cwd: root })).code).toBe(5);

      const repaired = await cli(["recover", "--rebuild-from-corpus", "--json"], { cwd: root });
      expect(repaired.json.rebuild.head_restored).toEqual({
        from: older.trim(),
        to: newestHead.trim(),
      });
      expect(readFileSync(head, "utf8").trim()).toBe(newestHead.trim());
      const after = await cli(["validate", "--json"], { cwd: root });
      expect(after.json.checks.filter((c: any) => c.status !== "passed")).toEqual([]);
      const hot = (await cli(["analyze", "hotspots", newest.artifact_id, "--json"], { cwd: root }))
        .json;
      expect(hot.evidence.status).not.toBe("unavailable");
      expect(hot.items.length).toBeGreaterThan(0);
    } finally {
      cleanup();
    }
  }, 90_000);

  test("status does not say in sync when SQLite quick_check fails", async () => {
    const { root, cleanup } = workspaceWithOneImport();
    try {
      const control = join(root, ".diagnostics", "control.sqlite");
      expect(existsSync(control + "-wal")).toBe(false);
      // Damage an index page: the schema still opens, quick_check reports the damage.
      const bytes = readFileSync(control);
      const pageSize = bytes.readUInt16BE(16);
      const pages = bytes.length / pageSize;
      for (let page = 2; page < pages; page++) {
        const at = page * pageSize;
        if (bytes[at] === 0x0a) {
          // A leaf index page: scramble its cells, keep the header.
          for (let i = at + 16; i < at + pageSize - 8; i++) bytes[i] = 0xff;
          break;
        }
      }
      writeFileSync(control, bytes);
      const status = await cli(["status", "--json"], { cwd: root });
      expect(status.json.control_plane.quick_check).not.toBe("ok");
      expect(status.json.catalog.in_sync).toBe(false);
      expect(status.stdout).not.toContain('"in_sync": true');
    } finally {
      cleanup();
    }
  }, 60_000);
});
