/**
 * Nsight Systems SQLite exports. A small export is built here with the tables and columns
 * `nsys export --type sqlite` writes (default lane); the real exports of the corpus
 * (1.6 and 2.1 MB, external lane) are checked against figures computed here with SQL over
 * the raw rows: events per table and kernel busy time per GPU stream.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import { tableOfBatches } from "./batch-tables.ts";
import type { ColumnBatch } from "../../src/domain/column-batch.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { corpusFiles, EXTERNAL_CORPUS, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { PID, smallExport, TID } from "./nsys-export.ts";
import { extracted } from "./adapter-harness.ts";

async function extract(bytes: Uint8Array): Promise<NormalizedEvidence> {
  const adapter = detectAdapter({ head: headOf(bytes), displayName: "report.sqlite" });
  expect(adapter?.name).toBe("nsys-sqlite");
  return await extracted(adapter!, {
    bytes,
    displayName: "report.sqlite",
    limits: DEFAULT_ADAPTER_LIMITS,
  });
}

describe("Nsight Systems SQLite export (built here)", () => {
  test(
    "kernels and memcpy on their GPU stream tracks, API calls, NVTX and OS runtime on the " +
      "thread, names resolved",
    async () => {
      const evidence = await extract(smallExport());
      const rows = rowsOf(evidence.tables.trace_events);
      const byCategory = (c: string) => rows.filter((r) => r.category === c);
      expect(byCategory("cuda_kernel").map((r) => [r.name, r.track_id, r.ts_ns, r.dur_ns])).toEqual(
        [
          ["saxpy", `gpu0:pid${PID}.ctx1.stream13`, 340n, 60],
          ["saxpy", `gpu0:pid${PID}.ctx1.stream7`, 150n, 100],
          ["saxpy", `gpu0:pid${PID}.ctx1.stream7`, 410n, 5],
        ],
      );
      expect(
        byCategory("cuda_memcpy").map((r) => [r.name, JSON.parse(r.args_json as string).bytes]),
      ).toEqual([["[CUDA memcpy HtoD]", 4096]]);
      const thread = rows.filter((r) => r.track_id === `${PID}:${TID}`);
      expect(thread.map((r) => [r.category, r.name, r.depth, r.phase])).toEqual([
        ["nvtx", "outer", 0, "X"],
        ["nvtx", "inner", 1, "X"],
        ["cuda_runtime", "cudaLaunchKernel_v7000", 2, "X"],
        ["nvtx", "mark", 3, "i"], // inside the launch call (100..140)
        ["cuda_runtime", "cudaLaunchKernel_v7000", 1, "X"],
        ["osrt", "pthread_mutex_lock", 1, "X"],
      ]);
      // Each track's identity and names are one tracks row.
      const tracks = rowsOf(evidence.tables.tracks);
      expect(tracks.map((t) => [t.track_id, t.pid, t.tid, t.process_name, t.thread_name])).toEqual([
        [`${PID}:${TID}`, String(PID), String(TID), "saxpy", "main thread"],
        [
          `gpu0:pid${PID}.ctx1.stream13`,
          "gpu0",
          `pid${PID}.ctx1.stream13`,
          "GPU 0: NVIDIA A100",
          `stream 13 (pid ${PID}, context 1)`,
        ],
        [
          `gpu0:pid${PID}.ctx1.stream7`,
          "gpu0",
          `pid${PID}.ctx1.stream7`,
          "GPU 0: NVIDIA A100",
          `stream 7 (pid ${PID}, context 1)`,
        ],
      ]);
      // CUPTI correlation: each launch's id is on the kernel it launched.
      const launches = byCategory("cuda_runtime").map(
        (r) => JSON.parse(r.args_json as string).correlation_id,
      );
      const kernels = byCategory("cuda_kernel").map(
        (r) => JSON.parse(r.args_json as string).correlation_id,
      );
      expect(launches.every((id: number) => kernels.includes(id))).toBe(true);
      expect(evidence.producerVersion).toBe("2024.5.1.113");
      expect(evidence.summary.export_schema_version).toBe("3.13.2");
      expect(evidence.limitations.map((l) => [l.code, l.count])).toEqual([
        ["other_nvtx_records", 1],
      ]);
    },
  );

  test(
    "the streaming entry point writes the same rows through the sink, from payload chunks of " +
      "any size",
    async () => {
      const bytes = smallExport();
      const whole = rowsOf((await extract(bytes)).tables.trace_events);
      const batches: ColumnBatch[] = [];
      async function* chunks() {
        for (let i = 0; i < bytes.length; i += 1000) yield bytes.subarray(i, i + 1000);
      }
      const adapter = detectAdapter({ head: headOf(bytes), displayName: "report.sqlite" })!;
      const streamed = await adapter.extractStream!({
        chunks: chunks(),
        displayName: "report.sqlite",
        limits: DEFAULT_ADAPTER_LIMITS,
        sink: { writeBatch: async (b) => void batches.push(b) },
      });
      expect(streamed.streamed).toEqual(["trace_events"]);
      expect(rowsOf(tableOfBatches(batches, "trace_events"))).toEqual(whole);
      expect(rowsOf(streamed.tables.tracks!)).toEqual(rowsOf((await extract(bytes)).tables.tracks));
    },
  );

  test("the same hardening as every SQLite input: a trigger refuses the export", async () => {
    let error: unknown;
    try {
      await extract(
        smallExport([
          "CREATE TRIGGER t AFTER INSERT ON StringIds BEGIN DELETE FROM StringIds; END",
        ]),
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FlameoxError);
    expect([(error as FlameoxError).code, (error as FlameoxError).details?.refused]).toEqual([
      "ARTIFACT_PARSE_FAILED",
      "trigger",
    ]);
  });
});

describe("Nsight Systems SQLite exports (corpus)", () => {
  const files = corpusFiles("nsys-sqlite").filter((f) => f.name.endsWith(".sqlite"));
  if (files.length === 0) {
    test.skip(
      `not run: the corpus exports are external (over the vendoring size cap); FLAMEOX_CORPUS ` +
        `is ${EXTERNAL_CORPUS ?? "unset"}`,
      () => {},
    );
    return;
  }
  for (const file of files) {
    test(
      `${file.name}: events per table and kernel busy time per stream equal SQL over the raw ` +
        `rows`,
      async () => {
        const evidence = await extract(loadPayload(file.path));
        const rows = rowsOf(evidence.tables.trace_events);
        const db = new Database(file.path, { readonly: true });
        try {
          const tables = new Set(
            (
              db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
                name: string;
              }[]
            ).map((r) => r.name),
          );
          const count = (sql: string) => (db.query(sql).get() as { n: number }).n;
          const expected: Record<string, number> = {};
          for (const [table, category] of [
            ["CUPTI_ACTIVITY_KIND_KERNEL", "cuda_kernel"],
            ["CUPTI_ACTIVITY_KIND_MEMCPY", "cuda_memcpy"],
            ["CUPTI_ACTIVITY_KIND_MEMSET", "cuda_memset"],
            ["CUPTI_ACTIVITY_KIND_RUNTIME", "cuda_runtime"],
            ["OSRT_API", "osrt"],
          ] as const) {
            if (tables.has(table)) expected[category] = count(`SELECT count(*) AS n FROM ${table}`);
          }
          if (tables.has("NVTX_EVENTS"))
            expected.nvtx = count(
              "SELECT count(*) AS n FROM NVTX_EVENTS WHERE eventType = 34 OR (eventType IN " +
                "(59, 60) AND end IS NOT NULL)",
            );
          const got: Record<string, number> = {};
          for (const r of rows) got[r.category as string] = (got[r.category as string] ?? 0) + 1;
          expect(Object.fromEntries(Object.entries(got).filter(([, n]) => n > 0))).toEqual(
            Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0)),
          );
          // Kernel busy time per device, context and stream: the raw rows' sum of end - start.
          const busy = db
            .query(
              "SELECT deviceId AS d, contextId AS c, streamId AS s, (globalPid / 16777216) % " +
                "16777216 AS pid, sum(end - start) AS ns FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP " +
                "BY 1, 2, 3, 4",
            )
            .all() as { d: number; c: number; s: number; pid: number; ns: number }[];
          const mine: Record<string, number> = {};
          for (const r of rows)
            if (r.category === "cuda_kernel")
              mine[r.track_id as string] = (mine[r.track_id as string] ?? 0) + (r.dur_ns as number);
          expect(mine).toEqual(
            Object.fromEntries(
              busy.map((b) => [`gpu${b.d}:pid${b.pid}.ctx${b.c}.stream${b.s}`, b.ns]),
            ),
          );
          const metaTable = tables.has("META_DATA_EXPORT")
            ? "META_DATA_EXPORT"
            : "EXPORT_META_DATA";
          expect(evidence.producerVersion).toBe(
            (
              db
                .query(`SELECT value FROM ${metaTable} WHERE name = 'EXPORT_PRODUCT_VERSION'`)
                .get() as { value: string }
            ).value,
          );
        } finally {
          db.close();
        }
      },
    );
  }
});
