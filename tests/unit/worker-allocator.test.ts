/**
 * The parse worker's allocator settings: huge pages for a small payload only, under names that
 * survive the child environment's filter and that the runtime's allocator reads (a renamed option
 * would otherwise be dropped without a word).
 */
import { describe, expect, test } from "bun:test";
import { buildChildEnvironment } from "../../src/broker/child-environment.ts";
import { workerAllocatorEnv } from "../../src/application/worker-allocator.ts";

const MiB = 1 << 20;
const GiB = 1 << 30;

describe("worker allocator settings", () => {
  test("a payload up to 64 MiB gets huge pages; a larger one the allocator's defaults", () => {
    for (const bytes of [0, 1 * MiB, 64 * MiB]) {
      expect(workerAllocatorEnv(bytes, GiB)).toEqual({
        MIMALLOC_ALLOW_THP: "1",
        MIMALLOC_ALLOW_LARGE_OS_PAGES: "1",
        MIMALLOC_MINIMAL_PURGE_SIZE: "2MiB",
      });
    }
    expect(workerAllocatorEnv(64 * MiB + 1, GiB)).toEqual({});
    expect(workerAllocatorEnv(2048 * MiB, 8 * GiB)).toEqual({});
  });

  test("under a memory budget below 1 GiB huge pages stay off (they round RSS up)", () => {
    expect(workerAllocatorEnv(MiB, GiB - 1)).toEqual({});
    expect(workerAllocatorEnv(MiB, 512 * MiB)).toEqual({});
  });

  test("the settings reach the worker's environment", () => {
    const env = buildChildEnvironment({}, [], workerAllocatorEnv(MiB, GiB));
    expect(env).toEqual(workerAllocatorEnv(MiB, GiB));
  });

  test("Bun's allocator takes each setting", () => {
    const r = Bun.spawnSync([process.execPath, "-e", "0"], {
      env: { ...workerAllocatorEnv(MiB, GiB), MIMALLOC_VERBOSE: "1", PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const report = `${r.stdout.toString()}${r.stderr.toString()}`;
    expect(report).toContain("option 'allow_thp': 1");
    expect(report).toContain("option 'allow_large_os_pages': 1");
    expect(report).toContain("option 'minimal_purge_size': 2048 KiB");
  });
});
