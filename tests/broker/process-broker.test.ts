import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { buildChildEnvironment } from "../../src/broker/child-environment.ts";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { MemoryCgroup, removeStaleGroups } from "../../src/broker/memory-cgroup.ts";
import { prlimitPath, runProcess } from "../../src/broker/process-broker.ts";
import { waitFor } from "../helpers.ts";

const base = {
  cwd: "/tmp",
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  maxOutputBytes: 1 << 20,
};

/**
 * A live process; zombies (exited, waiting for a reaper that a container's PID 1 may never be)
 * count as gone.
 */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

describe("process broker", () => {
  test("reports the exit code and output of an argv, never through a shell", async () => {
    const result = await runProcess({
      ...base,
      argv: ["/bin/echo", "a; rm -rf / $(x)"],
      deadlineAt: Date.now() + 10_000,
    });
    expect(result.termination).toEqual({ kind: "exited", exitCode: 0 });
    expect(result.stdout).toBe("a; rm -rf / $(x)\n");
  });

  test("a deadline kills the whole process group, including grandchildren", async () => {
    const result = await runProcess({
      ...base,
      argv: ["/bin/sh", "-c", "sleep 30 & echo $!; wait"],
      deadlineAt: Date.now() + 500,
      graceMs: 200,
    });
    expect(result.termination).toEqual({ kind: "timeout" });
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    // Gone within the same 400 ms the check always allowed, but no longer waited out in full.
    expect(await waitFor(() => !alive(grandchild), { timeoutMs: 400 })).toBe(true);
  });

  test("cancellation stops the process and is reported as cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await runProcess({
      ...base,
      argv: ["/bin/sleep", "30"],
      deadlineAt: Date.now() + 20_000,
      signal: controller.signal,
      graceMs: 100,
    });
    expect(result.termination).toEqual({ kind: "cancelled" });
    expect(result.wallMs).toBeLessThan(5_000);
  });

  test("stdin: bytes that come after the start are written, then the input ends", async () => {
    const { promise, resolve } = Promise.withResolvers<Uint8Array>();
    const running = runProcess({
      ...base,
      // Reads to the end: prints only once stdin is closed.
      argv: ["/bin/sh", "-c", "echo started >&2; cat; echo end"],
      deadlineAt: Date.now() + 10_000,
      stdin: promise,
    });
    await Bun.sleep(150);
    resolve(new TextEncoder().encode("a request\n"));
    const result = await running;
    expect(result.termination).toEqual({ kind: "exited", exitCode: 0 });
    expect(result.stderr).toBe("started\n");
    expect(result.stdout).toBe("a request\nend\n");
  });

  test("stdin: a refused input closes it empty; without one, stdin is empty too", async () => {
    const refused = Promise.reject(new Error("no input"));
    const result = await runProcess({
      ...base,
      argv: ["/bin/sh", "-c", "cat; echo end"],
      deadlineAt: Date.now() + 10_000,
      stdin: refused,
    });
    expect(result.termination).toEqual({ kind: "exited", exitCode: 0 });
    expect(result.stdout).toBe("end\n");
    const none = await runProcess({
      ...base,
      argv: ["/bin/sh", "-c", "cat; echo end"],
      deadlineAt: Date.now() + 10_000,
    });
    expect(none.stdout).toBe("end\n");
  });

  test("stdin: a child that ends before its input comes ends the run; the late input goes nowhere", async () => {
    const { promise, resolve } = Promise.withResolvers<Uint8Array>();
    const result = await runProcess({
      ...base,
      argv: ["/bin/sh", "-c", "exit 3"],
      deadlineAt: Date.now() + 10_000,
      stdin: promise,
    });
    expect(result.termination).toEqual({ kind: "exited", exitCode: 3 });
    // A broken pipe now (4 MiB: more than a pipe holds) goes nowhere.
    resolve(new Uint8Array(4 << 20));
    await Bun.sleep(100);
  });

  test("output beyond the cap is dropped and flagged", async () => {
    const result = await runProcess({
      ...base,
      argv: ["/usr/bin/head", "-c", "100000", "/dev/zero"],
      deadlineAt: Date.now() + 10_000,
      maxOutputBytes: 1000,
    });
    expect(result.stdout.length).toBe(1000);
    expect(result.stdoutTruncated).toBe(true);
  });

  test("refuses an empty argv or NUL bytes", async () => {
    await expect(
      runProcess({ ...base, argv: [], deadlineAt: Date.now() + 1000 }),
    ).rejects.toMatchObject({ code: "EXECUTION_REFUSED" });
    await expect(
      runProcess({ ...base, argv: ["/bin/echo", "a\u0000b"], deadlineAt: Date.now() + 1000 }),
    ).rejects.toMatchObject({ code: "EXECUTION_REFUSED" });
  });

  test("the memory cap makes an allocating child fail instead of growing", async () => {
    if (!prlimitPath())
      throw new Error("prlimit (util-linux) is required on Linux for the worker memory cap");
    const script = "const a=[];for(;;){a.push(new Float64Array(1<<20).fill(1))}";
    const cap = 768 * 1024 * 1024;
    const result = await runProcess({
      ...base,
      argv: [process.execPath, "-e", script],
      deadlineAt: Date.now() + 30_000,
      memoryCapBytes: cap,
      sampling: { intervalMs: 20 },
    });
    expect(result.memoryCapApplied).toBe(true);
    expect(result.termination.kind === "exited" ? result.termination.exitCode : -1).not.toBe(0);
    if (result.memoryCap === "cgroup") {
      // The kernel killed it at the limit. Its own peak RSS (not ru_maxrss, which includes this
      // test process) also counts the runtime's executable pages, charged to whoever loaded
      // them first, so it may exceed the cap by those.
      expect(result.memoryCapExceeded).toBe(true);
      expect(result.termination).toEqual({ kind: "signaled", signal: "SIGKILL" });
      expect(result.resources!.leader_hwm_bytes!).toBeLessThanOrEqual(cap + 160 * 1024 * 1024);
    } else {
      expect(result.memoryCap).toBe("address_space");
      expect(result.stderr).toContain("Out of memory");
    }
  });

  test("groups left by a killed flameox process are removed", async () => {
    const probe = MemoryCgroup.create(256 * 1024 * 1024);
    if (probe === null) {
      // No writable memory controller: flameox creates no groups here, so none can be left,
      // and the cap falls back to the rlimit. That fallback is what is checked instead.
      const result = await runProcess({
        ...base,
        argv: ["/bin/true"],
        deadlineAt: Date.now() + 10_000,
        memoryCapBytes: 256 * 1024 * 1024,
      });
      expect(result.memoryCap).toBe("address_space");
      return;
    }
    await probe.dispose();
    // A pid above the kernel's pid_max cannot be alive.
    const stale = join(dirname(probe.dir), "flameox-4194305-1");
    mkdirSync(stale);
    removeStaleGroups();
    expect(existsSync(stale)).toBe(false);
  });

  test("a memory cgroup, where the host allows one, is removed after the child", async () => {
    const group = MemoryCgroup.create(256 * 1024 * 1024);
    if (group === null) {
      // No writable memory controller here: the broker uses the rlimit (previous test).
      expect(prlimitPath()).not.toBeNull();
      return;
    }
    await group.dispose();
    const parent = dirname(group.dir);
    const before = new Set(
      readdirSync(parent).filter((d) => d.startsWith(`flameox-${process.pid}-`)),
    );
    const result = await runProcess({
      ...base,
      argv: ["/bin/true"],
      deadlineAt: Date.now() + 10_000,
      memoryCapBytes: 256 * 1024 * 1024,
    });
    expect(result.memoryCap).toBe("cgroup");
    expect(result.memoryCapExceeded).toBe(false);
    const after = readdirSync(parent).filter(
      (d) => d.startsWith(`flameox-${process.pid}-`) && !before.has(d),
    );
    expect(after).toEqual([]);
  });
});

describe("child environment", () => {
  test("passes only allowlisted variables and strips loaders and credentials", () => {
    const env = buildChildEnvironment(
      {
        PATH: "/bin",
        HOME: "/root",
        LD_PRELOAD: "/x.so",
        NODE_OPTIONS: "--require x",
        GITHUB_TOKEN: "t",
        AWS_SECRET_ACCESS_KEY: "s",
        OTHER: "o",
      },
      ["PATH", "LD_PRELOAD", "NODE_OPTIONS", "GITHUB_TOKEN"],
      { DYLD_INSERT_LIBRARIES: "x", API_KEY: "k", MODE: "fast" },
    );
    expect(env).toEqual({ PATH: "/bin", MODE: "fast" });
  });
});
