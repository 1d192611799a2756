/**
 * The child environment: an inherit list plus declared additions, never a variable of a
 * refused family in any spelling; and a declared PATH cannot turn a bare host-tool name
 * into a project file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  accountHome,
  buildChildEnvironment,
  workloadEnvironment,
} from "../../src/broker/child-environment.ts";
import { resolveExecutable } from "../../src/broker/executable-resolver.ts";
import { isStrippedVariable, WORKLOAD_PATH } from "../../src/domain/environment-policy.ts";
import { tempDir } from "../helpers.ts";

describe("refused variables", () => {
  test(
    "loader, libc, runtime module-path and option variables are refused in any case; ordinary " +
      "names pass",
    () => {
      for (const name of [
        "NODE_PATH",
        "GCONV_PATH",
        "GLIBC_TUNABLES",
        "node_options",
        "Ld_Preload",
        "LD_AUDIT",
        "PYTHONSAFEPATH",
        "BASH_FUNC_x%%",
        "npm_config_script_shell",
        "JDK_JAVA_OPTIONS",
        "PERL5OPT",
        "RUBYOPT",
        "GIT_CONFIG_COUNT",
        "git_dir",
        "LOCPATH",
        "MALLOC_CHECK_",
        "BUN_OPTIONS",
        "github_token",
      ]) {
        expect([name, isStrippedVariable(name)]).toEqual([name, true]);
      }
      for (const name of ["NODE_ENV", "RUST_LOG", "OMP_NUM_THREADS", "SIZE", "PATH", "LANG"])
        expect([name, isStrippedVariable(name)]).toEqual([name, false]);
    },
  );

  test("a child gets only the inherit list and declared additions, minus refused names", () => {
    const env = buildChildEnvironment(
      {
        PATH: "/usr/bin",
        HOME: "/root",
        NODE_PATH: "/x",
        node_options: "--require=/x.js",
        OTHER: "o",
      },
      ["PATH", "NODE_PATH", "node_options"],
      { SIZE: "3", GCONV_PATH: "/x", GLIBC_TUNABLES: "glibc.rtld.x=1" },
    );
    expect(env).toEqual({ PATH: "/usr/bin", SIZE: "3" });
  });
});

describe("a workload's environment", () => {
  test(
    "PATH and HOME are flameox's own even when the inherit list names them; inherited values " +
      "must be plain data; declarations win",
    () => {
      const host = {
        PATH: "/tmp/evil:/usr/bin",
        HOME: "/tmp/evil-home",
        LANG: "C.UTF-8",
        LC_ALL: "/tmp/locale",
        TZ: "Europe/Paris",
        CUDA_VISIBLE_DEVICES: "0,1",
        AWS_SECRET_ACCESS_KEY: "x",
        LD_PRELOAD: "/x.so",
      };
      const env = workloadEnvironment(
        {
          child_environment_allowlist: [
            "PATH",
            "HOME",
            "LANG",
            "LC_ALL",
            "TZ",
            "CUDA_VISIBLE_DEVICES",
            "AWS_SECRET_ACCESS_KEY",
            "LD_PRELOAD",
          ],
        },
        host,
        { MODE: "fast" },
      );
      expect(env).toEqual({
        PATH: WORKLOAD_PATH,
        ...(accountHome() ? { HOME: accountHome()! } : {}),
        LANG: "C.UTF-8",
        TZ: "Europe/Paris",
        CUDA_VISIBLE_DEVICES: "0,1",
        MODE: "fast",
      });
      expect(
        workloadEnvironment({ child_environment_allowlist: ["TZ"] }, { TZ: "../../tmp/z" }).TZ,
      ).toBeUndefined();
      // The workspace policy (a person's file, in the plan's policy digest) may name another base
      // PATH.
      expect(
        workloadEnvironment(
          { child_environment_allowlist: [], workload_path: "/opt/tools/bin:/usr/bin" },
          host,
        ).PATH,
      ).toBe("/opt/tools/bin:/usr/bin");
      expect(
        workloadEnvironment({ child_environment_allowlist: [] }, host, {
          PATH: "/opt/node/bin:/usr/bin",
          HOME: "/srv/h",
        }),
      ).toMatchObject({ PATH: "/opt/node/bin:/usr/bin", HOME: "/srv/h" });
    },
  );

  test("the account's home comes from the password database, not $HOME", () => {
    const saved = process.env.HOME;
    process.env.HOME = "/tmp/not-home";
    try {
      expect(accountHome()).not.toBe("/tmp/not-home");
    } finally {
      process.env.HOME = saved;
    }
  });
});

describe("a declared PATH cannot redirect a bare name into the project", () => {
  const dir = tempDir("flameox-path-");
  const root = join(dir.path, "project");
  const outside = join(dir.path, "outside");
  beforeAll(() => {
    mkdirSync(join(root, "bin"), { recursive: true });
    mkdirSync(outside);
    for (const tool of ["git", "sleep"]) {
      writeFileSync(join(root, "bin", tool), "#!/bin/sh\necho project\n");
      chmodSync(join(root, "bin", tool), 0o755);
    }
    symlinkSync(join(root, "bin", "sleep"), join(outside, "sleep"));
  });
  afterAll(() => dir.cleanup());

  test("project PATH entries are skipped: the host tool further down is bound", () => {
    const bound = resolveExecutable({
      command: "git",
      cwd: root,
      projectRoot: root,
      path: `${join(root, "bin")}:/usr/bin:/bin`,
    });
    expect(bound.trust).toBe("host_tool");
    expect(bound.canonical_path.startsWith(root)).toBe(false);
  });

  test(
    "with only project entries the name is not found; a link from outside into the project is " +
      "refused",
    () => {
      expect(() =>
        resolveExecutable({
          command: "git",
          cwd: root,
          projectRoot: root,
          path: join(root, "bin"),
        }),
      ).toThrow(/Cannot find git/);
      expect(() =>
        resolveExecutable({
          command: "sleep",
          cwd: root,
          projectRoot: root,
          path: `${outside}:/usr/bin`,
        }),
      ).toThrow(/resolves into the project/);
    },
  );
});
