/**
 * Nsight exports read in order from SQLite (sorted-events.ts) against the same exports read
 * whole and ordered in memory (read-events.ts, the reference): every row of every table,
 * the summary and the limitations must be the same. Over the corpus exports (external
 * lane), a generated export with several host and device tracks, and small exports built
 * to tie and collide where the two orders could part. Exports SQLite cannot order exactly
 * must be read the held way. Then the parse worker's path: the payload spooled to a spill
 * file and opened from there, with the same hardening as the bytes.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { tableOfBatches } from "./batch-tables.ts";
import { NsysExportRead, nsysSqliteAdapter } from "../../src/adapters/nsys-sqlite/adapter.ts";
import { NsysRowReader } from "../../src/adapters/nsys-sqlite/nsys-rows.ts";
import { MAX_RANKED_TRACKS, sortedReadPlan } from "../../src/adapters/nsys-sqlite/sorted-events.ts";
import {
  openUntrustedSqlite,
  openUntrustedSqliteFile,
} from "../../src/adapters/sqlite/untrusted-database.ts";
import type { ColumnBatch } from "../../src/domain/column-batch.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import { FileSpillSpace } from "../../workers/spill-space.ts";
import { generateNsysExport } from "../../fixtures/generators/nsys-sqlite.ts";
import { corpusFiles, EXTERNAL_CORPUS } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { PID, smallExport, TID } from "./nsys-export.ts";
import { extracted } from "./adapter-harness.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "flameox-nsys-"));
  dirs.push(dir);
  return dir;
};

function readWith(bytes: Uint8Array, force: "auto" | "held") {
  const { db, schema } = openUntrustedSqlite(bytes, "test export");
  try {
    const read = new NsysExportRead(db, schema, DEFAULT_ADAPTER_LIMITS, force);
    const events = rowsOf(tableOfBatches(read.batches(), "trace_events"));
    return { order: read.order, events, tracks: rowsOf(read.tracks()), ...read.evidence() };
  } finally {
    db.close();
  }
}

/** Both paths over one export: SQLite's order (asserted taken) equals the held one. */
function expectSameBothWays(bytes: Uint8Array, expectedOrder: "sqlite" | "held" = "sqlite") {
  const held = readWith(bytes, "held");
  const sorted = readWith(bytes, "auto");
  expect(held.order).toBe("held");
  expect(sorted.order).toBe(expectedOrder);
  expect(sorted.events.length).toBe(held.events.length);
  // The first row that differs, named by its index.
  const first = held.events.findIndex((row, i) => !Bun.deepEquals(row, sorted.events[i]));
  if (first >= 0) expect([first, sorted.events[first]]).toEqual([first, held.events[first]]);
  const { order: _a, ...heldRest } = held;
  const { order: _b, ...sortedRest } = sorted;
  expect(sortedRest).toEqual(heldRest);
  return sorted;
}

const GLOBAL_TID = PID * 2 ** 24 + TID;
const GLOBAL_PID = PID * 2 ** 24;

describe("SQLite's order is the held order", () => {
  test(
    "the small export: stream tracks 7 and 13 (13 sorts first as text), NVTX nesting, " + "marks",
    () => {
      const read = expectSameBothWays(smallExport());
      expect(read.events.length).toBe(10);
    },
  );

  test("a generated export with two host threads, NVTX ranges and marks, four streams", () => {
    const dir = scratch();
    const path = join(dir, "varied.sqlite");
    generateNsysExport(path, { kernels: 1000, varied: true });
    const read = expectSameBothWays(readFileSync(path));
    expect(read.tracks.map((t) => t.track_id)).toEqual([
      `${PID}:${PID}`,
      `${PID}:${PID + 7}`,
      `gpu0:pid${PID}.ctx1.stream10`,
      `gpu0:pid${PID}.ctx1.stream7`,
      `gpu0:pid${PID}.ctx1.stream8`,
      `gpu0:pid${PID}.ctx1.stream9`,
    ]);
    expect(read.summary.trace_events).toBe(1000 * 2 + 2 * 63);
  });

  test(
    "ties: equal starts across tables and within one, equal ends, instants, no end, times past " +
      "2^53",
    () => {
      const big = 2 ** 53;
      const read = expectSameBothWays(
        smallExport([
          // Same start and end on the thread in three tables, and twice within one.
          `INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (600, 700, 1, ${GLOBAL_TID}, 21, 1, ` +
            `0), (600, 700, 1, ${GLOBAL_TID}, 22, 1, 0), (600, 650, 1, ${GLOBAL_TID}, 23, 1, 0)`,
          `INSERT INTO OSRT_API VALUES (600, 700, 27, ${GLOBAL_TID}, 5, 0), (600, 600, ` +
            `27, ${GLOBAL_TID}, 5, 0)`,
          `INSERT INTO NVTX_EVENTS VALUES (600, NULL, 34, NULL, NULL, NULL, 'tie ` +
            `mark', ${GLOBAL_TID}, NULL, NULL), (600, 700, 59, NULL, NULL, NULL, 'tie ` +
            `range', ${GLOBAL_TID}, NULL, NULL), (600, 90, 34, NULL, NULL, NULL, 'mark with an ` +
            `end', ${GLOBAL_TID}, NULL, NULL)`,
          // Starts past 2^53 that the reader holds as the same double, and one a REAL.
          `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (${big + 1}, ${big + 9}, 0, 1, 7, ` +
            `31, ${GLOBAL_PID}, 3, 2, 1, 1, 1, 1, 1, 1, 1), (${big}, ${big + 9}, 0, 1, 7, ` +
            `32, ${GLOBAL_PID}, 3, 2, 1, 1, 1, 1, 1, 1, 1), (${big}.0, ${big + 4}, 0, 1, 7, ` +
            `33, ${GLOBAL_PID}, 3, 2, 1, 1, 1, 1, 1, 1, 1)`,
          // An NVTX domain record on a thread nothing else names (a row of no track SQL ranks).
          "INSERT INTO NVTX_EVENTS VALUES (0, NULL, 75, NULL, NULL, NULL, 'domain', 999999, " +
            "NULL, NULL)",
          // A REAL stream id both write alike.
          `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (5, 9, 0, 1, 7.5, 34, ${GLOBAL_PID}, ` +
            `3, 2, 1, 1, 1, 1, 1, 1, 1)`,
          // A memcpy on a kernel's stream at a kernel's start, and skipped rows among them.
          `INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (150, 250, 0, 1, 7, ` +
            `41, ${GLOBAL_PID}, 8, 2), (150, 140, 0, 1, 7, 42, ${GLOBAL_PID}, 8, 2)`,
        ]),
      );
      expect(read.limitations.map((l) => l.code)).toEqual([
        "negative_durations",
        "other_nvtx_records",
      ]);
    },
  );

  test("more tracks than SQL ranks: rows sorted by the id's text, as held", () => {
    const kernels = Array.from(
      { length: MAX_RANKED_TRACKS + 6 },
      (_, k) =>
        `(${1000 - k}, ${1010 + (k % 3)}, ${k % 2}, 1, ${k + 1}, ${70 + k}, ${GLOBAL_PID}, ` +
        `3, 2, 1, 1, 1, 1, 1, 1, 1)`,
    );
    const bytes = smallExport([
      `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ${kernels.join(", ")}`,
    ]);
    const { db, schema } = openUntrustedSqlite(bytes, "test export");
    try {
      const plan = sortedReadPlan(new NsysRowReader(db, schema, "test export", 1000));
      expect(plan.sortable && plan.ids === null).toBe(true);
    } finally {
      db.close();
    }
    expect(expectSameBothWays(bytes).tracks.length).toBeGreaterThan(MAX_RANKED_TRACKS);
  });

  test(
    "host ids with the upper bits Nsight sets (2^48 and above), and thread names per " +
      "globalTid",
    () => {
      const high = 18 * 2 ** 48; // Real exports' globalTid, e.g. 302119224788637, are past 2^48.
      expectSameBothWays(
        smallExport([
          `INSERT INTO ThreadNames VALUES (6, 0, ${high + GLOBAL_TID + 1})`,
          `INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, ` +
            `1, ${high + GLOBAL_TID + 1}, 51, 1, 0), (5, 30, 1, ${high + GLOBAL_TID + 1}, 52, 1, ` +
            `0)`,
          `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 1, 2, 3, ` +
            `53, ${high + GLOBAL_PID}, 3, 2, 1, 1, 1, 1, 1, 1, 1)`,
        ]),
      );
    },
  );

  test(
    "a row limit of a few events: the same rows of each table are read, and the same " + "refusal",
    () => {
      const bytes = smallExport();
      const limits = { ...DEFAULT_ADAPTER_LIMITS, maxEvents: 4 };
      const failure = (force: "auto" | "held") => {
        const { db, schema } = openUntrustedSqlite(bytes, "test export");
        try {
          tableOfBatches(new NsysExportRead(db, schema, limits, force).batches(), "trace_events");
        } catch (error) {
          return [(error as FlameoxError).code, (error as FlameoxError).message];
        } finally {
          db.close();
        }
        return null;
      };
      expect(failure("auto")).toEqual(failure("held"));
      expect(failure("auto")?.[0]).toBe("ARTIFACT_TOO_LARGE");
    },
  );
});

describe("exports SQLite cannot order exactly are read the held way, with the same rows", () => {
  const cases: [string, string[], RegExp][] = [
    [
      "a REAL stream id SQL writes otherwise (1.0e+21; the reader writes 1e+21)",
      [`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = 1e21 WHERE streamId = 7`],
      /id SQL writes as/,
    ],
    [
      "a negative globalTid (SQL's integer division is not Math.floor)",
      [`INSERT INTO OSRT_API VALUES (1, 2, 27, -5, 5, 0)`],
      /id SQL writes as/,
    ],
    [
      "a NULL stream id beside stream 0: one track id, named two ways",
      [
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT " +
          "NULL, deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER, " +
          "globalPid INTEGER, value INTEGER, bytes INTEGER)",
        `INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1, 2, 0, 1, NULL, 61, ${GLOBAL_PID}, ` +
          `0, 64), (3, 4, 0, 1, 0, 62, ${GLOBAL_PID}, 0, 64)`,
      ],
      /named by rows that name it differently/,
    ],
    [
      "an index that serves the reader's scan (its order is the index's)",
      ["CREATE INDEX covering ON OSRT_API (globalTid, start, end, nameId, returnValue)"],
      /read through an index/,
    ],
    [
      "a column that hides the rowid",
      ["ALTER TABLE OSRT_API ADD COLUMN rowid INTEGER"],
      /named like its rowid/,
    ],
  ];
  for (const [what, sql, reason] of cases) {
    test(what, () => {
      const bytes = smallExport(sql);
      const { db, schema } = openUntrustedSqlite(bytes, "test export");
      try {
        const plan = sortedReadPlan(new NsysRowReader(db, schema, "test export", 1000));
        expect(plan.sortable ? "sortable" : plan.reason).toMatch(reason);
      } finally {
        db.close();
      }
      expectSameBothWays(bytes, "held");
    });
  }
});

describe("Nsight exports of the corpus: SQLite's order is the held order", () => {
  const files = corpusFiles("nsys-sqlite").filter((f) => f.name.endsWith(".sqlite"));
  if (files.length === 0) {
    test.skip(
      `not run: the corpus exports are external; FLAMEOX_CORPUS ` +
        `is ${EXTERNAL_CORPUS ?? "unset"}`,
      () => {},
    );
    return;
  }
  for (const file of files)
    test(`${file.name}: every row of trace_events and tracks, the summary and limitations`, () => {
      expectSameBothWays(readFileSync(file.path));
    });
});

describe("the parse worker's path: spooled to a spill file, opened from there", () => {
  async function streamed(bytes: Uint8Array) {
    const dir = scratch();
    const spill = new FileSpillSpace(dir);
    const batches: ColumnBatch[] = [];
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += 4096) yield bytes.subarray(i, i + 4096);
    }
    try {
      const out = await nsysSqliteAdapter.extractStream!({
        chunks: chunks(),
        displayName: "report.sqlite",
        limits: DEFAULT_ADAPTER_LIMITS,
        sink: { writeBatch: async (b) => void batches.push(b) },
        spill,
      });
      return { out, rows: rowsOf(tableOfBatches(batches, "trace_events")), dir };
    } finally {
      spill.disposeAll();
    }
  }

  test("the same rows as the bytes in memory, and the spill file is gone afterwards", async () => {
    const dir = scratch();
    const path = join(dir, "varied.sqlite");
    generateNsysExport(path, { kernels: 500, varied: true });
    const bytes = readFileSync(path);
    const whole = await extracted(nsysSqliteAdapter, {
      bytes,
      displayName: "report.sqlite",
      limits: DEFAULT_ADAPTER_LIMITS,
    });
    const { out, rows, dir: spillDir } = await streamed(bytes);
    expect(rows).toEqual(rowsOf(whole.tables.trace_events));
    expect(rowsOf(out.tables.tracks!)).toEqual(rowsOf(whole.tables.tracks));
    expect(out.summary).toEqual(whole.summary);
    expect(Bun.spawnSync(["ls", "-A", spillDir]).stdout.toString()).toBe("");
  });

  test(
    "a WAL-mode export (header versions 2) is read as its main file alone, from a file " + "too",
    async () => {
      const bytes = smallExport();
      const wal = new Uint8Array(bytes);
      wal[18] = 2;
      wal[19] = 2;
      const { rows } = await streamed(wal);
      expect(rows).toEqual(readWith(bytes, "auto").events);
    },
  );

  test(
    "the file is refused as the bytes are: a trigger, a cut-short file, a page count past the " +
      "cap",
    async () => {
      const refusal = async (bytes: Uint8Array) => {
        try {
          await streamed(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(FlameoxError);
          return [(error as FlameoxError).code, (error as FlameoxError).details?.refused ?? null];
        }
        return null;
      };
      expect(
        await refusal(
          smallExport([
            "CREATE TRIGGER t AFTER INSERT ON StringIds BEGIN DELETE FROM StringIds; END",
          ]),
        ),
      ).toEqual(["ARTIFACT_PARSE_FAILED", "trigger"]);
      const cut = smallExport();
      const view = new DataView(cut.buffer, cut.byteOffset, cut.byteLength);
      view.setUint32(28, cut.length / 4096 + 5);
      view.setUint32(92, view.getUint32(24));
      expect(await refusal(cut)).toEqual(["ARTIFACT_PARSE_FAILED", null]);
      const path = join(scratch(), "capped.sqlite");
      await Bun.write(path, smallExport());
      let capped: unknown;
      try {
        openUntrustedSqliteFile(path, "test export", { maxPages: 2 });
      } catch (error) {
        capped = error;
      }
      expect((capped as FlameoxError).details?.refused).toBe("page_count");
    },
  );

  test(
    "the file is opened read-only: nothing SQLite is asked can change it, and no journal " +
      "appears beside it",
    () => {
      const dir = scratch();
      const path = join(dir, "a ? b # %.sqlite");
      const db0 = new Database(path);
      db0.run("CREATE TABLE t (a)");
      db0.run("INSERT INTO t VALUES (1)");
      db0.close();
      const before = readFileSync(path);
      const { db } = openUntrustedSqliteFile(path, "test export");
      try {
        expect(db.query("SELECT a FROM t").all()).toEqual([{ a: 1 }]);
        expect(() => db.run("DELETE FROM t")).toThrow();
        expect(db.query("PRAGMA trusted_schema").get()).toEqual({ trusted_schema: 0 });
      } finally {
        db.close();
      }
      expect(readFileSync(path)).toEqual(before);
      expect(Bun.spawnSync(["ls", "-A", dir]).stdout.toString().trim()).toBe("a ? b # %.sqlite");
    },
  );
});
