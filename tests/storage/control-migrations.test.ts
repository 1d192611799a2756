/**
 * A control plane from before the HEAD log is brought forward by its step and keeps its rows;
 * unknown versions are refused.
 */
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { ControlPlane } from "../../src/storage/control-plane.ts";
import { CONTROL_SCHEMA_VERSION } from "../../src/storage/control-schema.ts";
import { isFlameoxError } from "../../src/domain/errors.ts";
import { tempDir } from "../helpers.ts";

test("a version-3 control plane gains the HEAD log and keeps its rows", () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, "control.sqlite");
    ControlPlane.create(path, "w").close();
    const old = new Database(path, { strict: true });
    old.exec("DROP TABLE corpus_head_log");
    old.exec("PRAGMA user_version = 3");
    old.close();
    const control = ControlPlane.open(path);
    expect(
      (control.db.query("PRAGMA user_version").get() as { user_version: number }).user_version,
    ).toBe(CONTROL_SCHEMA_VERSION);
    expect(control.db.query("SELECT count(*) AS n FROM corpus_head_log").get()).toEqual({ n: 0 });
    expect(control.db.query("SELECT value FROM meta WHERE key = 'workspace_id'").get()).toEqual({
      value: "w",
    });
    control.close();
    // Opening again applies nothing twice.
    ControlPlane.open(path).close();

    const future = new Database(path, { strict: true });
    future.exec(`PRAGMA user_version = ${CONTROL_SCHEMA_VERSION + 1}`);
    future.close();
    let refused: unknown;
    try {
      ControlPlane.open(path);
    } catch (error) {
      refused = error;
    }
    expect(isFlameoxError(refused, "WORKSPACE_SCHEMA_UNSUPPORTED")).toBe(true);
  } finally {
    dir.cleanup();
  }
});
