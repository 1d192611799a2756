/**
 * The parse worker's WASM compiler settings (threads, OMG tier-up threshold): they survive the child
 * environment's filter and JavaScriptCore takes them under those names (a renamed option would make
 * every worker fail to start).
 */
import { describe, expect, test } from "bun:test";
import { buildChildEnvironment } from "../../src/broker/child-environment.ts";
import {
  OMG_THRESHOLD,
  WASM_COMPILER_THREADS,
  workerCompilerEnv,
} from "../../src/application/worker-compiler.ts";

describe("worker compiler settings", () => {
  test("the settings reach the worker's environment", () => {
    const env = buildChildEnvironment(
      { BUN_JSC_numberOfWasmCompilerThreads: "9", BUN_JSC_thresholdForOMGOptimizeAfterWarmUp: "1" },
      [],
      workerCompilerEnv(),
    );
    expect(env).toEqual({
      BUN_JSC_numberOfWasmCompilerThreads: String(WASM_COMPILER_THREADS),
      BUN_JSC_thresholdForOMGOptimizeAfterWarmUp: String(OMG_THRESHOLD),
    });
  });

  test("JavaScriptCore takes them", () => {
    const r = Bun.spawnSync([process.execPath, "-e", "0"], {
      env: { ...workerCompilerEnv(), BUN_JSC_dumpOptions: "1", PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const report = `${r.stdout.toString()}${r.stderr.toString()}`;
    expect(r.exitCode).toBe(0);
    expect(report).toMatch(
      new RegExp(`numberOfWasmCompilerThreads=${WASM_COMPILER_THREADS} \\(default: 1\\)`),
    );
    expect(report).toMatch(
      new RegExp(`thresholdForOMGOptimizeAfterWarmUp=${OMG_THRESHOLD} \\(default: 50000\\)`),
    );
  });
});
