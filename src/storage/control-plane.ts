/**
 * ControlPlane owns `.diagnostics/control.sqlite`: runs and their revisions, artifacts,
 * registrations, extractions, quarantine records and the derived corpus catalog.
 *
 * The workspace write lock is SQLite's own: `BEGIN IMMEDIATE` takes the single writer
 * slot (waiting up to the busy timeout) and the OS releases it if the holder dies, so a
 * crashed importer can never leave a stale lock behind. Readers use WAL snapshots and
 * never block writers.
 */
import { constants, Database } from "bun:sqlite";
import { accessSync, constants as fsConstants } from "node:fs";
import { dirname } from "node:path";
import { FlameoxError } from "../domain/errors.ts";
import {
  BASE_CONTROL_SCHEMA_VERSION,
  CONTROL_MIGRATIONS,
  CONTROL_SCHEMA_SQL,
  CONTROL_SCHEMA_VERSION,
} from "./control-schema.ts";

const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

export class ControlPlane {
  readonly db: Database;
  /** Opened from a read-only file system: reads work, every write fails WORKSPACE_READ_ONLY. */
  readonly readOnly: boolean;

  private constructor(db: Database, readOnly = false) {
    this.db = db;
    this.readOnly = readOnly;
  }

  /** Creates the database with its whole schema in one transaction. */
  static create(path: string, workspaceId: string): ControlPlane {
    const db = new Database(path, { create: true, strict: true });
    configure(db, DEFAULT_LOCK_TIMEOUT_MS);
    db.transaction(() => {
      db.exec(CONTROL_SCHEMA_SQL);
      db.query(
        "INSERT INTO meta (key, value) VALUES ('workspace_id', ?), ('schema_version', ?)",
      ).run(workspaceId, String(CONTROL_SCHEMA_VERSION));
      db.exec(`PRAGMA user_version = ${CONTROL_SCHEMA_VERSION}`);
    }).immediate();
    return new ControlPlane(db);
  }

  static open(path: string, options: { lockTimeoutMs?: number } = {}): ControlPlane {
    let db: Database;
    let readOnly = false;
    try {
      db = new Database(path, { create: false, strict: true });
      configure(db, options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
    } catch (error) {
      if (!onReadOnlyFileSystem(path)) {
        throw new FlameoxError(
          "WORKSPACE_INVALID",
          `Cannot open the control plane: ${(error as Error).message}`,
          {
            remediation: ["Run `flameox validate` to inspect the workspace"],
          },
        );
      }
      db = openImmutable(path);
      readOnly = true;
    }
    // Read-only: no step can be applied; a database a few steps old is read as it is
    // (tables a step would add read as absent, e.g. the HEAD log).
    const version = readOnly ? userVersion(db) : migrate(db);
    if (
      version > CONTROL_SCHEMA_VERSION ||
      version < BASE_CONTROL_SCHEMA_VERSION ||
      (!readOnly && version !== CONTROL_SCHEMA_VERSION)
    ) {
      db.close();
      throw new FlameoxError(
        "WORKSPACE_SCHEMA_UNSUPPORTED",
        `Cannot open workspace: control schema version ${version} is not supported (this ` +
          `flameox knows version ${CONTROL_SCHEMA_VERSION})`,
        {
          remediation: [
            "Use the flameox version that created this workspace",
            "Or initialize a new workspace elsewhere",
          ],
        },
      );
    }
    return new ControlPlane(db, readOnly);
  }

  /**
   * Runs `fn` holding the workspace write lock. Everything `fn` does in SQLite commits or
   * rolls back together; file moves inside `fn` must be ordered so that a crash at any
   * point leaves the corpus consistent (see corpus publication).
   */
  withWriteLock<T>(fn: () => T): T {
    if (this.readOnly) {
      throw new FlameoxError(
        "WORKSPACE_READ_ONLY",
        "Cannot write to the workspace: it is on a read-only file system",
        {
          remediation: [
            "Reads (status, validate, analyses) still work",
            "Run writing commands on a writable copy of the workspace",
          ],
        },
      );
    }
    try {
      return this.db.transaction(fn).immediate();
    } catch (error) {
      if (isBusy(error)) {
        throw new FlameoxError(
          "WRITE_LOCK_TIMEOUT",
          "Cannot take the workspace write lock: another flameox process holds it",
          {
            remediation: ["Retry when the other import or commit has finished"],
          },
        );
      }
      throw error;
    }
  }

  close(): void {
    this.db.close(false);
  }
}

/**
 * A WAL database on a read-only file system cannot be opened normally: SQLite must create
 * its -shm file. Opened `immutable`, SQLite reads the main file as it is, which is exact
 * when no writer can change it (the file system is read-only) and the last writer closed
 * cleanly; committed transactions still only in a -wal file are not seen.
 */
function openImmutable(path: string): Database {
  try {
    return new Database(
      `file:${encodeURI(path)}?immutable=1`,
      constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI,
    );
  } catch (error) {
    throw new FlameoxError(
      "WORKSPACE_INVALID",
      `Cannot open the control plane read-only: ${(error as Error).message}`,
      {
        remediation: ["Run `flameox validate` on a writable copy of the workspace"],
      },
    );
  }
}

function onReadOnlyFileSystem(path: string): boolean {
  try {
    accessSync(dirname(path), fsConstants.W_OK);
    return false;
  } catch (error) {
    return (
      (error as NodeJS.ErrnoException).code === "EROFS" ||
      (error as NodeJS.ErrnoException).code === "EACCES"
    );
  }
}

const userVersion = (db: Database): number =>
  (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;

/**
 * Brings an older database forward one declared step at a time, each step and its
 * version bump in one write transaction (a concurrent opener waits, then sees the new
 * version and does nothing). Returns the version it ends at; an unknown one is left alone.
 */
function migrate(db: Database): number {
  let version = userVersion(db);
  while (version < CONTROL_SCHEMA_VERSION && CONTROL_MIGRATIONS[version] !== undefined) {
    const from = version;
    db.transaction(() => {
      if (userVersion(db) !== from) return;
      db.exec(CONTROL_MIGRATIONS[from]!);
      db.exec(`PRAGMA user_version = ${from + 1}`);
      db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(
        String(from + 1),
      );
    }).immediate();
    version = userVersion(db);
  }
  return version;
}

function configure(db: Database, lockTimeoutMs: number): void {
  db.query("PRAGMA journal_mode = WAL").get();
  db.exec("PRAGMA synchronous = FULL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(lockTimeoutMs))}`);
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code ?? "";
  return (
    code.startsWith("SQLITE_BUSY") || /database is locked/i.test(String((error as Error)?.message))
  );
}

export const nowIso = (): string => new Date().toISOString();
