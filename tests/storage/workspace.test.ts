import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isFlameoxError } from "../../src/domain/errors.ts";
import { initWorkspace, locateWorkspace, openWorkspace } from "../../src/storage/workspace.ts";
import { readCommit, readHeadId } from "../../src/storage/corpus-store.ts";
import { tempDir } from "../helpers.ts";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function project() {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  return dir.path;
}

describe("workspace", () => {
  test(
    "init creates the layout, a WAL control plane with the whole schema, and a root " + "commit",
    async () => {
      const root = project();
      const { created, identity } = await initWorkspace(root);
      expect(created).toBe(true);
      for (const dir of [
        "artifacts",
        "evidence",
        "generations",
        "corpus/commits",
        "staging",
        "quarantine",
        "trash",
      ]) {
        expect(existsSync(join(root, ".diagnostics", dir))).toBe(true);
      }
      const json = JSON.parse(readFileSync(join(root, ".diagnostics", "workspace.json"), "utf8"));
      expect(json).toMatchObject({
        schema_version: 1,
        workspace_id: identity.workspace_id,
        project_root: "..",
      });
      const db = new Database(join(root, ".diagnostics", "control.sqlite"));
      expect((db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe(
        "wal",
      );
      const tables = (
        db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
      ).map((t) => t.name);
      expect(tables).toEqual(
        expect.arrayContaining([
          "runs",
          "run_revisions",
          "artifacts",
          "registrations",
          "extractions",
          "quarantine",
          "catalog_generations",
        ]),
      );
      db.close();
      const ws = await openWorkspace(root);
      const commit = readCommit(ws.paths, readHeadId(ws.paths));
      expect(commit.generations).toEqual([]);
      expect(commit.parent_commit_id).toBeNull();
      ws.close();
    },
  );

  test("init is idempotent and keeps the same identity", async () => {
    const root = project();
    const first = await initWorkspace(root);
    const second = await initWorkspace(root);
    expect(second.created).toBe(false);
    expect(second.identity.workspace_id).toBe(first.identity.workspace_id);
  });

  test("init adds .diagnostics/ to .git/info/exclude once, never to .gitignore", async () => {
    const root = project();
    mkdirSync(join(root, ".git", "info"), { recursive: true });
    writeFileSync(join(root, ".git", "info", "exclude"), "# existing\n*.tmp");
    await initWorkspace(root);
    await initWorkspace(root);
    const exclude = readFileSync(join(root, ".git", "info", "exclude"), "utf8");
    expect(exclude).toBe("# existing\n*.tmp\n/.diagnostics/\n");
    expect(existsSync(join(root, ".gitignore"))).toBe(false);
  });

  test("locate walks up from a nested directory", async () => {
    const root = project();
    await initWorkspace(root);
    const nested = join(root, "a", "b", "c");
    mkdirSync(nested, { recursive: true });
    expect(locateWorkspace(nested)).toBe(root);
  });

  test("locate without a workspace is WORKSPACE_NOT_FOUND", () => {
    const root = project();
    try {
      locateWorkspace(root);
      throw new Error("expected failure");
    } catch (error) {
      expect(isFlameoxError(error, "WORKSPACE_NOT_FOUND")).toBe(true);
    }
  });

  test("an unknown workspace schema version is refused, not migrated", async () => {
    const root = project();
    await initWorkspace(root);
    const path = join(root, ".diagnostics", "workspace.json");
    const json = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify({ ...json, schema_version: 99 }));
    await expect(openWorkspace(root)).rejects.toMatchObject({
      code: "WORKSPACE_SCHEMA_UNSUPPORTED",
    });
    expect(JSON.parse(readFileSync(path, "utf8")).schema_version).toBe(99);
  });

  test("an unknown control-plane schema version is refused", async () => {
    const root = project();
    await initWorkspace(root);
    const db = new Database(join(root, ".diagnostics", "control.sqlite"));
    db.exec("PRAGMA user_version = 7");
    db.close();
    await expect(openWorkspace(root)).rejects.toMatchObject({
      code: "WORKSPACE_SCHEMA_UNSUPPORTED",
    });
  });

  test("an unknown key in config.toml fails with its path", async () => {
    const root = project();
    await initWorkspace(root);
    writeFileSync(join(root, ".diagnostics", "config.toml"), "[storage]\nmax_artifact_bytez = 5\n");
    await expect(openWorkspace(root)).rejects.toMatchObject({
      code: "WORKSPACE_INVALID",
      message: expect.stringContaining("max_artifact_bytez"),
    });
  });
});
