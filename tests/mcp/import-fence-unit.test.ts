/**
 * The import fence in process: what it hands the import, and how it keeps descriptor paths out of
 * messages.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fenceImportPath, renameFailure } from "../../src/application/import-fence.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import { tempDir } from "../helpers.ts";

let dir: { path: string; cleanup: () => void };

beforeAll(() => {
  dir = tempDir("flameox-fence-");
  mkdirSync(join(dir.path, "a", "b"), { recursive: true });
  writeFileSync(join(dir.path, "a", "b", "file.json"), "{}");
});
afterAll(() => dir.cleanup());

describe("fenceImportPath", () => {
  test(
    "pins the parent directory by descriptor on Linux and keeps the caller's relative path for " +
      "display",
    async () => {
      const fenced = await fenceImportPath(dir.path, "a/./b/file.json");
      try {
        expect(fenced.displayPath).toBe("a/b/file.json");
        if (process.platform === "linux")
          expect(fenced.openPath).toMatch(/^\/proc\/self\/fd\/\d+\/file\.json$/);
        expect(await Bun.file(fenced.openPath).text()).toBe("{}");
      } finally {
        await fenced.release();
      }
    },
  );

  test(
    "renameFailure replaces the descriptor path with the display path and names the " + "field",
    async () => {
      const fenced = await fenceImportPath(dir.path, "a/b/file.json");
      await fenced.release();
      const failure = new FlameoxError(
        "ARTIFACT_REFUSED",
        `Cannot import ${fenced.openPath}: it changed`,
        { runId: "run_x", remediation: ["r"] },
      );
      const renamed = renameFailure(failure, fenced) as FlameoxError;
      expect(renamed.message).toBe("Cannot import a/b/file.json: it changed");
      expect(renamed).toMatchObject({
        code: "ARTIFACT_REFUSED",
        runId: "run_x",
        remediation: ["r"],
        details: { field: "path" },
      });
      const unrelated = new Error("other");
      expect(renameFailure(unrelated, fenced)).toBe(unrelated);
    },
  );

  test("a path naming the root itself is not a file", async () => {
    await expect(fenceImportPath(dir.path, ".")).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
    });
    await expect(fenceImportPath(dir.path, "a/b")).rejects.toMatchObject({
      code: "ARTIFACT_REFUSED",
    });
    await expect(fenceImportPath(dir.path, "a/b/file.json/x")).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
    });
  });
});
