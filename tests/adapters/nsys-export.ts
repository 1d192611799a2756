/**
 * A small Nsight Systems SQLite export built with the tables and columns
 * `nsys export --type sqlite` writes (tests and fuzz seeds).
 */
import { Database } from "bun:sqlite";

export const PID = 4242;
export const TID = 4243;
const GLOBAL_TID = PID * 2 ** 24 + TID;
const GLOBAL_PID = PID * 2 ** 24;

/**
 * A small export: the tables (and column order) Nsight Systems 2022–2024 write, a few rows each.
 */
export function smallExport(extra: string[] = []): Uint8Array {
  const db = new Database(":memory:");
  db.run("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)");
  db.run("CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT)");
  db.run("CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER)");
  db.run("CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT)");
  db.run("CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT)");
  db.run(
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, " +
      "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, " +
      "correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName " +
      "INTEGER NOT NULL, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY " +
      "INTEGER, blockZ INTEGER, registersPerThread INTEGER)",
  );
  db.run(
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, " +
      "eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER " +
      "NOT NULL, returnValue INTEGER NOT NULL)",
  );
  db.run(
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, " +
      "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, " +
      "correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT " +
      "NULL)",
  );
  db.run(
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT " +
      "NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, " +
      "endGlobalTid INTEGER, textId INTEGER)",
  );
  db.run(
    "CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER " +
      "NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL)",
  );
  db.run(
    "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'saxpy'), (3, " +
      "'saxpy(int, float, float*, float*)'), (4, 'main thread'), (5, 'pthread_mutex_lock'), " +
      "(6, 'inner')",
  );
  db.run("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A100')");
  db.query("INSERT INTO ThreadNames VALUES (4, 0, ?)").run(GLOBAL_TID);
  db.query("INSERT INTO PROCESSES VALUES (?, ?, 'saxpy')").run(GLOBAL_PID, PID);
  db.run(
    "INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_PRODUCT_VERSION', '2024.5.1.113'), " +
      "('EXPORT_SCHEMA_VERSION', '3.13.2')",
  );
  db.query(
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 140, 1, ?, 11, 1, 0), (300, 330, " +
      "1, ?, 12, 1, 0)",
  ).run(GLOBAL_TID, GLOBAL_TID);
  db.query(
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (150, 250, 0, 1, 7, 11, ?, 3, 2, 2, 1, 1, " +
      "512, 1, 1, 26), (340, 400, 0, 1, 13, 12, ?, 3, 2, 1, 1, 1, 256, 1, 1, 26), (410, 415, " +
      "0, 1, 7, 13, ?, 3, 2, 1, 1, 1, 32, 1, 1, 26)",
  ).run(GLOBAL_PID, GLOBAL_PID, GLOBAL_PID);
  db.query("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (50, 90, 0, 1, 7, 10, ?, 4096, 1)").run(
    GLOBAL_PID,
  );
  // An outer range with a range nested in it, a mark, and a domain record (not an event).
  db.query(
    "INSERT INTO NVTX_EVENTS VALUES (0, 500, 59, NULL, NULL, NULL, 'outer', ?, NULL, NULL), " +
      "(90, 200, 59, NULL, NULL, NULL, NULL, ?, NULL, 6), (120, NULL, 34, NULL, NULL, NULL, " +
      "'mark', ?, NULL, NULL), (0, NULL, 75, NULL, NULL, NULL, 'domain', ?, NULL, NULL)",
  ).run(GLOBAL_TID, GLOBAL_TID, GLOBAL_TID, GLOBAL_TID);
  db.query("INSERT INTO OSRT_API VALUES (420, 480, 27, ?, 5, 0)").run(GLOBAL_TID);
  for (const sql of extra) db.run(sql);
  const bytes = db.serialize();
  db.close();
  return bytes;
}
