/**
 * How a capture becomes a trial outcome, and how an oracle's receipt refines its verdict:
 * a receipt can turn a pass into fail, inconclusive or unsupported, never a failure into
 * a pass; an unreadable receipt makes a passing oracle an error, never a silent pass.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { receiptVerdict } from "../../src/application/capture/oracle-receipt.ts";
import type { CaptureResult } from "../../src/application/capture/capture-result.ts";
import { trialOf } from "../../src/application/study/capture-trial-executor.ts";
import { tempDir } from "../helpers.ts";

const dir = tempDir("flameox-receipt-");
afterAll(() => dir.cleanup());
let n = 0;
const receipt = (body: string) => {
  const path = join(dir.path, `r${n++}.json`);
  writeFileSync(path, body);
  return path;
};
const absent = join(dir.path, "none.json");

describe("oracle receipts", () => {
  test("exit status decides first; a receipt refines a pass only", () => {
    expect(receiptVerdict(0, absent)).toEqual({ status: "passed", reason: null, receipt: null });
    expect(receiptVerdict(3, absent)).toMatchObject({ status: "failed", reason: "oracle_exit_3" });
    expect(
      receiptVerdict(1, receipt(JSON.stringify({ status: "pass", reason: "looks_fine" }))),
    ).toMatchObject({ status: "failed", reason: "looks_fine" });
    expect(
      receiptVerdict(0, receipt(JSON.stringify({ status: "fail", reason: "output_differs" }))),
    ).toMatchObject({ status: "failed", reason: "output_differs" });
    expect(receiptVerdict(0, receipt(JSON.stringify({ status: "inconclusive" })))).toMatchObject({
      status: "inconclusive",
      reason: null,
    });
    expect(
      receiptVerdict(0, receipt(JSON.stringify({ status: "unsupported", reason: "x".repeat(300) })))
        .reason,
    ).toHaveLength(100);
    expect(receiptVerdict(0, receipt(JSON.stringify({ status: "pass" })))).toMatchObject({
      status: "passed",
      receipt: { status: "pass" },
    });
  });

  test("an unreadable or unknown receipt makes a passing oracle an error", () => {
    expect(receiptVerdict(0, receipt("{not json"))).toEqual({
      status: "error",
      reason: "invalid_receipt",
      receipt: null,
    });
    expect(receiptVerdict(0, receipt(JSON.stringify({ status: "great" })))).toMatchObject({
      status: "error",
      reason: "invalid_receipt",
    });
    expect(receiptVerdict(0, receipt(JSON.stringify([1, 2])))).toMatchObject({
      status: "error",
      reason: "invalid_receipt",
    });
  });
});

function capture(change: Partial<CaptureResult>): CaptureResult {
  const samples = {
    artifact_id: "sha256:s",
    registration_id: "reg_s",
    display_name: "samples.json",
    kind: "benchmark_samples",
    role: "output",
    media_type: "application/json",
    byte_length: 10,
    partial: false,
    produced_bytes: 10,
    deduplicated: false,
  };
  return {
    run_id: "run_1",
    execution_status: "succeeded",
    termination: {
      kind: "exited",
      exit_code: 0,
      signal: null,
      policy: null,
      signals_sent: [],
      wall_ms: 5,
      escaped_descendants_killed: 0,
    },
    artifacts: [samples],
    extractions: [
      {
        artifact_id: "sha256:s",
        status: "published",
        adapter: "benchmark-samples",
        generation_id: "gen_1",
        corpus_commit_id: "sha256:c",
        tables: { measurements: 7 },
        error: null,
      },
    ],
    validation: null,
    ...change,
  } as CaptureResult;
}

describe("trial outcome of a capture", () => {
  test("succeeded only with published samples and a passing oracle", () => {
    expect(trialOf(capture({}))).toMatchObject({
      run_id: "run_1",
      outcome: "succeeded",
      failure_class: null,
      artifact_ids: ["sha256:s"],
    });
    const passed = {
      strength: "cross_treatment_equivalence",
      status: "passed" as const,
      exit_code: 0,
      wall_ms: 3,
      artifact_ids: [],
      reason: null,
      receipt: null,
    };
    expect(trialOf(capture({ validation: passed }))).toMatchObject({
      outcome: "succeeded",
      oracle: { status: "pass", strength: "cross_treatment_equivalence" },
    });
    expect(
      trialOf(
        capture({
          validation: { ...passed, status: "failed", exit_code: 1, reason: "output_differs" },
        }),
      ),
    ).toMatchObject({
      outcome: "oracle_failed",
      failure_class: "oracle_fail",
      message: "output_differs",
    });
    expect(
      trialOf(capture({ validation: { ...passed, status: "error", reason: "oracle_timeout" } })),
    ).toMatchObject({ outcome: "oracle_failed", oracle: { status: "error" } });
  });

  test(
    "no samples, unextracted samples, timeouts, cancellations and failures keep their " + "run",
    () => {
      expect(trialOf(capture({ artifacts: [] }))).toMatchObject({
        run_id: "run_1",
        outcome: "invalid",
        failure_class: "no_samples",
      });
      const failedExtraction = [
        {
          artifact_id: "sha256:s",
          status: "failed" as const,
          adapter: "benchmark-samples",
          generation_id: null,
          corpus_commit_id: null,
          tables: {},
          error: { code: "PARSE_FAILED", message: "bad json" },
        },
      ];
      expect(trialOf(capture({ extractions: failedExtraction }))).toMatchObject({
        outcome: "invalid",
        failure_class: "samples_not_extracted",
      });
      expect(
        trialOf(
          capture({
            execution_status: "timed_out",
            termination: {
              kind: "timeout",
              exit_code: null,
              signal: null,
              policy: null,
              signals_sent: [],
              wall_ms: 9,
              escaped_descendants_killed: 0,
            },
          }),
        ),
      ).toMatchObject({ run_id: "run_1", outcome: "timed_out" });
      expect(trialOf(capture({ execution_status: "cancelled" }))).toMatchObject({
        outcome: "cancelled",
      });
      expect(
        trialOf(
          capture({
            execution_status: "failed",
            termination: {
              kind: "exited",
              exit_code: 2,
              signal: null,
              policy: null,
              signals_sent: [],
              wall_ms: 1,
              escaped_descendants_killed: 0,
            },
          }),
        ),
      ).toMatchObject({
        outcome: "failed",
        failure_class: "process_failed",
        message: "the workload stopped with exit code 2",
      });
    },
  );
});
