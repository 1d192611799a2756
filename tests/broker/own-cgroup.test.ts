/**
 * A worker's memory cgroup is created beneath flameox's own (v1 and v2), so it cannot
 * escape a limit set on flameox's caller.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { MemoryCgroup } from "../../src/broker/memory-cgroup.ts";
import { resolveOwnMemoryCgroup } from "../../src/broker/own-cgroup.ts";

const V1_MOUNTS = [
  "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
  "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct",
  "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
].join("\n");

describe("own memory cgroup", () => {
  test("v1: the memory hierarchy's line, under its mount point", () => {
    const cgroup = "9:name=systemd:/\n4:memory:/ci/job-17\n2:cpu,cpuacct:/ci\n0::/\n";
    expect(resolveOwnMemoryCgroup(cgroup, V1_MOUNTS, 1)).toEqual({
      version: 1,
      dir: "/sys/fs/cgroup/memory/ci/job-17",
    });
    // Joined controllers on one hierarchy.
    const joined = "3:cpu,memory:/slice/a\n";
    const mounts = "40 31 0:40 / /sys/fs/cgroup/cpu,memory rw - cgroup cgroup rw,cpu,memory";
    expect(resolveOwnMemoryCgroup(joined, mounts, 1)).toEqual({
      version: 1,
      dir: "/sys/fs/cgroup/cpu,memory/slice/a",
    });
  });

  test("v1 in a container: the mount shows the container's group as its root", () => {
    const mounts =
      "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory";
    expect(resolveOwnMemoryCgroup("4:memory:/docker/abc/worker\n", mounts, 1)).toEqual({
      version: 1,
      dir: "/sys/fs/cgroup/memory/worker",
    });
    expect(resolveOwnMemoryCgroup("4:memory:/elsewhere\n", mounts, 1)).toBeNull();
  });

  test("v2: the unified line, under the cgroup2 mount (escaped paths decoded)", () => {
    const mounts = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate";
    expect(resolveOwnMemoryCgroup("0::/user.slice/app.scope\n", mounts, 2)).toEqual({
      version: 2,
      dir: "/sys/fs/cgroup/user.slice/app.scope",
    });
    expect(resolveOwnMemoryCgroup("0::/\n", mounts, 2)).toEqual({
      version: 2,
      dir: "/sys/fs/cgroup",
    });
    const spaced = "30 23 0:26 / /mnt/cg\\040two rw - cgroup2 cgroup2 rw";
    expect(resolveOwnMemoryCgroup("0::/a\n", spaced, 2)).toEqual({
      version: 2,
      dir: "/mnt/cg two/a",
    });
    expect(resolveOwnMemoryCgroup("0::/a\n", V1_MOUNTS, 2)).toBeNull();
  });

  test("a worker's group on this host sits beneath this process's own group", async () => {
    const group = MemoryCgroup.create(64 * 1024 * 1024);
    if (group === null) {
      // No writable memory controller: the broker falls back to the rlimit
      // (process-broker.test.ts).
      return;
    }
    try {
      const cgroup = readFileSync("/proc/self/cgroup", "utf8");
      const mountinfo = readFileSync("/proc/self/mountinfo", "utf8");
      const own =
        resolveOwnMemoryCgroup(cgroup, mountinfo, 1) ??
        resolveOwnMemoryCgroup(cgroup, mountinfo, 2);
      expect(own).not.toBeNull();
      expect(dirname(group.dir)).toBe(own!.dir);
    } finally {
      await group.dispose();
    }
  });
});
