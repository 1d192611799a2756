/**
 * Opens a SQLite file that came from outside (a coverage.py data file, an Nsight Systems
 * export) as untrusted input. SQLite's schema is code: a view or trigger runs whatever SQL
 * its author wrote when a query touches it, a generated column evaluates an expression on
 * every read, a virtual table hands rows to a module, and the header can claim more pages
 * than the file holds. So, before and after opening:
 *  - the 100-byte header is checked first: magic, a valid page size, and a page count
 *    (header or file length) within `maxPages`;
 *  - the bytes are deserialized read-only into SQLite's own memory: no file is opened, no
 *    lock, journal or WAL is looked for, and the content cannot change while it is read
 *    (the bytes are those already hashed into the store, copied once more by SQLite);
 *    or, for a reader that must not hold the file in memory (a large Nsight export), a
 *    private copy the caller made (a parse worker's spill file) is opened read-only and
 *    `immutable`: SQLite takes no lock and looks for no journal or WAL beside it, and
 *    reads pages through its bounded page cache;
 *  - `query_only` and `trusted_schema=OFF` are set, and no extension is ever loaded;
 *  - any view, trigger or virtual table in `sqlite_master` refuses the file, and the
 *    tables a reader queries are checked for generated columns before it queries them.
 * Readers then run fixed, bounded SELECTs of their own over plain tables.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { constants, Database } from "bun:sqlite";
import { FlameoxError } from "../../domain/errors.ts";
import { parseFailed } from "../json-guard.ts";
import { isSqliteHeader } from "./sqlite-header.ts";

/** Pages accepted by default: 1 Mi pages is 4 GiB at SQLite's default 4 KiB page size. */
export const DEFAULT_MAX_SQLITE_PAGES = 1 << 20;
/** Schema objects a file may declare; a real producer's schema has tens. */
const MAX_SCHEMA_OBJECTS = 10_000;

export interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/**
 * A refusal is a parse failure naming what was refused (`details.refused`), like a JUnit
 * report's DOCTYPE: the same code in process and through the parse worker's protocol.
 */
function refused(label: string, what: string, details: Record<string, unknown>): FlameoxError {
  return new FlameoxError("ARTIFACT_PARSE_FAILED", `Cannot parse ${label}: ${what}`, {
    remediation: [
      `A ${label} needs no views, triggers, virtual tables or generated columns; re-export ` +
        `it from its producer`,
    ],
    details,
  });
}

/**
 * The page size the header declares (SQLite writes 1 for 65536), or null when it is not a valid
 * one.
 */
function pageSizeOf(bytes: Uint8Array): number | null {
  const raw = (bytes[16]! << 8) | bytes[17]!;
  const size = raw === 1 ? 65536 : raw;
  return size >= 512 && size <= 65536 && (size & (size - 1)) === 0 ? size : null;
}

const u32 = (bytes: Uint8Array, at: number) =>
  ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) + (bytes[at + 2]! << 8) + bytes[at + 3]!;

/**
 * A read-only, in-memory database over `bytes`, with the schema checked. The caller closes it.
 * Throws ARTIFACT_PARSE_FAILED for a file that is not SQLite or is damaged, and for what a
 * hostile file would use (schema code, an impossible page count) with `details.refused`.
 */
export function openUntrustedSqlite(
  bytes: Uint8Array,
  label: string,
  options: { maxPages?: number } = {},
): { db: Database; schema: SchemaObject[] } {
  checkHeader(bytes, bytes.length, label, options.maxPages ?? DEFAULT_MAX_SQLITE_PAGES);
  // WAL-mode files (format versions 2) are read as rollback-journal ones, because an
  // in-memory database has no WAL and the artifact is the main file alone. Deserializing
  // copies the bytes into SQLite's memory (a test holds it to that), so only a patched
  // header needs a copy of its own.
  let image = bytes;
  if (bytes[18] === 2 || bytes[19] === 2) {
    image = new Uint8Array(bytes);
    if (image[18] === 2) image[18] = 1;
    if (image[19] === 2) image[19] = 1;
  }
  let db: Database;
  try {
    db = Database.deserialize(image, { readonly: true, strict: true });
  } catch (error) {
    throw cannotOpen(label, error);
  }
  return harden(db, label);
}

/** Bytes of the SQLite header (the first page begins with it). */
const HEADER_BYTES = 100;

/**
 * The same, over a file the caller owns and nothing else writes while it is open (a copy
 * in its own scratch space), read through SQLite's page cache instead of held in memory.
 * The header is checked against the file's length before SQLite opens it. `immutable`
 * makes SQLite take no lock and look for no hot journal or WAL beside the file, so a
 * WAL-mode file is read as its main file alone, as `openUntrustedSqlite` reads it.
 */
export function openUntrustedSqliteFile(
  path: string,
  label: string,
  options: { maxPages?: number } = {},
): { db: Database; schema: SchemaObject[] } {
  const header = new Uint8Array(HEADER_BYTES);
  let length: number;
  const fd = openSync(path, "r");
  try {
    length = fstatSync(fd).size;
    readSync(fd, header, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  checkHeader(
    header.subarray(0, Math.min(length, HEADER_BYTES)),
    length,
    label,
    options.maxPages ?? DEFAULT_MAX_SQLITE_PAGES,
  );
  let db: Database;
  try {
    db = new Database(
      `${fileUri(path)}?immutable=1`,
      constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI,
    );
  } catch (error) {
    throw cannotOpen(label, error);
  }
  // Pages are read into SQLite's page cache, never mapped: mapped pages would count in the
  // reader's resident size as the file is read.
  try {
    db.run("PRAGMA mmap_size = 0");
  } catch (error) {
    db.close();
    throw cannotOpen(label, error);
  }
  return harden(db, label);
}

/**
 * A `file:` URI naming `path`: every byte but unreserved ones and `/` percent-encoded, so a
 * `?`, `#` or `%` in a directory name cannot end the path or start a parameter.
 */
function fileUri(path: string): string {
  let out = "file:";
  for (const byte of new TextEncoder().encode(path)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9/._~-]/.test(c) ? c : `%${byte.toString(16).padStart(2, "0")}`;
  }
  return out;
}

function cannotOpen(label: string, error: unknown): FlameoxError {
  return parseFailed(
    label,
    `SQLite cannot open the file (${error instanceof Error ? error.message : String(error)})`,
    error,
  );
}

/**
 * Refuses what is not a SQLite file, a damaged header and page counts over `maxPages` or past
 * the file's end, from the header alone (`bytes`: at least its first 100 bytes when the file has
 * them; `length`: the file's).
 */
function checkHeader(bytes: Uint8Array, length: number, label: string, maxPages: number): void {
  if (length < HEADER_BYTES || bytes.length < HEADER_BYTES || !isSqliteHeader(bytes))
    throw parseFailed(label, "the file is not a SQLite database (no SQLite header)");
  const pageSize = pageSizeOf(bytes);
  if (pageSize === null)
    throw parseFailed(label, "the SQLite header declares an invalid page size");
  // The header's page count is authoritative only while its version-valid-for number matches the
  // change counter.
  const headerPages = u32(bytes, 28);
  const headerValid = headerPages > 0 && u32(bytes, 24) === u32(bytes, 92);
  const filePages = Math.ceil(length / pageSize);
  const pages = headerValid ? headerPages : filePages;
  if (pages > maxPages)
    throw refused(label, `the database claims ${pages} pages, over the limit of ${maxPages}`, {
      refused: "page_count",
      pages,
      limit: maxPages,
    });
  if (headerValid && headerPages > filePages) {
    // A cut-short copy (or a forged count): SQLite would read past the end as if pages were
    // missing.
    throw parseFailed(
      label,
      `the header claims ${headerPages} pages of ${pageSize} bytes but the file ` +
        `holds ${length} bytes; it was cut short`,
    );
  }
}

/** Sets the read-only pragmas and refuses schema code; closes `db` when it refuses. */
function harden(db: Database, label: string): { db: Database; schema: SchemaObject[] } {
  try {
    db.run("PRAGMA query_only = ON");
    db.run("PRAGMA trusted_schema = OFF");
    db.run("PRAGMA cell_size_check = ON");
    const schema = db
      .query(`SELECT type, name, tbl_name, sql FROM sqlite_master LIMIT ${MAX_SCHEMA_OBJECTS + 1}`)
      .all() as SchemaObject[];
    if (schema.length > MAX_SCHEMA_OBJECTS)
      throw refused(label, `the schema has more than ${MAX_SCHEMA_OBJECTS} objects`, {
        refused: "schema_size",
      });
    for (const object of schema) {
      if (object.type === "view" || object.type === "trigger") {
        throw refused(
          label,
          `the database declares a ${object.type} (${JSON.stringify(object.name)}), which ` +
            `would run SQL the file's author wrote`,
          { refused: object.type, name: object.name },
        );
      }
      if (object.type === "table" && /^\s*create\s+virtual\s+table/i.test(object.sql ?? "")) {
        throw refused(
          label,
          `the database declares a virtual table (${JSON.stringify(object.name)})`,
          { refused: "virtual_table", name: object.name },
        );
      }
    }
    return { db, schema };
  } catch (error) {
    db.close();
    if (error instanceof FlameoxError) throw error;
    throw parseFailed(
      label,
      `the SQLite schema cannot be read ` +
        `(${error instanceof Error ? error.message : String(error)})`,
      error,
    );
  }
}

/**
 * The columns of a plain table the reader is about to query, refusing generated columns
 * (an expression evaluated on every read) and tables the schema does not declare.
 */
export function tableColumns(
  db: Database,
  schema: readonly SchemaObject[],
  table: string,
  label: string,
): Set<string> {
  if (!schema.some((o) => o.type === "table" && o.name === table)) return new Set();
  const columns = db.query("SELECT name, hidden FROM pragma_table_xinfo(?)").all(table) as {
    name: string;
    hidden: number;
  }[];
  for (const column of columns) {
    if (column.hidden === 2 || column.hidden === 3) {
      throw refused(
        label,
        `table ${table} has a generated column (${JSON.stringify(column.name)})`,
        { refused: "generated_column", table, column: column.name },
      );
    }
  }
  return new Set(columns.map((c) => c.name));
}

/**
 * Runs a reader's query, turning SQLite's errors (a damaged page, a bad cell) into parse failures.
 */
export function sqliteFailure(label: string, error: unknown): FlameoxError {
  if (error instanceof FlameoxError) return error;
  return parseFailed(
    label,
    `SQLite could not read the file (${error instanceof Error ? error.message : String(error)})`,
    error,
  );
}
