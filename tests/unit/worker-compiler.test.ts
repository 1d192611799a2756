/**
 * The parse worker's WASM compiler threads: the setting survives the child environment's filter
 * and JavaScriptCore takes it under that name (a renamed option would be dropped without a word).
 */
import { describe, expect, test } from "bun:test";
import { buildChildEnvironment } from "../../src/broker/child-environment.ts";
import { WASM_COMPILER_THREADS, workerCompilerEnv } from "../../src/application/worker-compiler.ts";

describe("worker compiler settings", () => {
  test("the setting reaches the worker's environment", () => {
    const env = buildChildEnvironment(
      { BUN_JSC_numberOfWasmCompilerThreads: "9" },
      [],
      workerCompilerEnv(),
    );
    expect(env).toEqual({ BUN_JSC_numberOfWasmCompilerThreads: String(WASM_COMPILER_THREADS) });
  });

  test("JavaScriptCore takes it", () => {
    const r = Bun.spawnSync([process.execPath, "-e", "0"], {
      env: { ...workerCompilerEnv(), BUN_JSC_dumpOptions: "1", PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const report = `${r.stdout.toString()}${r.stderr.toString()}`;
    expect(report).toMatch(
      new RegExp(`numberOfWasmCompilerThreads=${WASM_COMPILER_THREADS} \\(default: 1\\)`),
    );
  });
});
