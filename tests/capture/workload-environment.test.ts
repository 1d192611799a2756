/**
 * A workload's environment is a closed allow-list: a fixed PATH and the account's HOME,
 * locale/time-zone/GPU names whose values are plain data, and what the approved
 * declaration adds. Nothing else of flameox's own environment (chosen by whoever started
 * it: an MCP client starts the server) reaches the workload, and a PATH planted there
 * cannot choose which binary an approved bare name runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { accountHome } from "../../src/broker/child-environment.ts";
import { WORKLOAD_PATH } from "../../src/domain/environment-policy.ts";
import { tempDir } from "../helpers.ts";
import { type CaptureProject, captureProject } from "./capture-helpers.ts";

const planted = tempDir("flameox-planted-");
const fakeBin = join(planted.path, "bin");
const marker = join(planted.path, "fake-true-ran");
const gitMarker = join(planted.path, "fake-git-ran");

const TOML = `
[workloads.env]
argv = ["env"]
environment = { MODE = "fast" }

[workloads.truth]
argv = ["true"]

[workloads.declared-path]
argv = ["true"]
environment = { PATH = "${fakeBin}" }
`;

let p: CaptureProject;
beforeAll(async () => {
  mkdirSync(fakeBin);
  writeFileSync(join(fakeBin, "true"), `#!/bin/sh\necho ran > ${marker}\n`);
  chmodSync(join(fakeBin, "true"), 0o755);
  writeFileSync(join(fakeBin, "git"), `#!/bin/sh\necho ran > ${gitMarker}\nexit 1\n`);
  chmodSync(join(fakeBin, "git"), 0o755);
  p = await captureProject(TOML);
});
afterAll(() => {
  p.cleanup();
  planted.cleanup();
});

const stdoutOf = (result: { artifacts: { role: string; artifact_id: string }[] }) =>
  p.bytes(result.artifacts.find((a) => a.role === "stdout")!.artifact_id).toString();

/** Runs `body` with flameox's own environment changed as `changes` says, then restores it. */
async function withHostEnvironment<T>(
  changes: Record<string, string>,
  body: () => Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(changes).map((k) => [k, process.env[k]]));
  Object.assign(process.env, changes);
  try {
    return await body();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

describe("workload environment: a closed allow-list", () => {
  test(
    "flameox's secrets, loader variables, PATH and HOME do not reach the workload; declared " +
      "variables and plain locale values do",
    async () => {
      const result = await withHostEnvironment(
        {
          AWS_SECRET_ACCESS_KEY: "aws-secret",
          DATABASE_URL: "postgres://user:pw@db/x",
          LD_PRELOAD: "/nonexistent/evil.so",
          PATH: `${fakeBin}:${process.env.PATH}`,
          HOME: planted.path,
          LANG: "C.UTF-8",
          LC_CTYPE: "../../tmp/evil-locale",
          TZ: "../../tmp/zone",
        },
        async () => (await p.service.capture()).run({ adapter: "command", workload: "env" }),
      );
      const env = Object.fromEntries(
        stdoutOf(result)
          .trim()
          .split("\n")
          .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
      );
      for (const name of ["AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "LD_PRELOAD", "LC_CTYPE", "TZ"])
        expect([name, env[name]]).toEqual([name, undefined]);
      expect(env.PATH).toBe(WORKLOAD_PATH);
      expect(env.HOME).toBe(accountHome() ?? undefined);
      expect(env.HOME).not.toBe(planted.path);
      expect(env.LANG).toBe("C.UTF-8");
      expect(env.MODE).toBe("fast");
      const allowed = new Set(["PATH", "HOME", "LANG", "MODE"]);
      expect(Object.keys(env).filter((name) => !allowed.has(name))).toEqual([]);
    },
  );

  test(
    "a PATH in flameox's environment cannot choose which binary an approved bare name " + "runs",
    async () => {
      rmSync(marker, { force: true });
      const result = await withHostEnvironment(
        { PATH: `${fakeBin}:${process.env.PATH}` },
        async () => (await p.service.capture()).run({ adapter: "command", workload: "truth" }),
      );
      expect(result.execution_status).toBe("succeeded");
      expect(existsSync(marker)).toBe(false);
      const plan = await withHostEnvironment({ PATH: `${fakeBin}:${process.env.PATH}` }, async () =>
        (await p.service.capture()).plan({ adapter: "command", workload: "truth" }),
      );
      expect(JSON.stringify(plan)).not.toContain(fakeBin);
    },
  );

  test(
    "a PATH the approved declaration names is the one the workload gets, and only the " +
      "workload: planning finds git on the workspace's PATH",
    async () => {
      rmSync(marker, { force: true });
      rmSync(gitMarker, { force: true });
      const result = await (await p.service.capture()).run({
        adapter: "command",
        workload: "declared-path",
      });
      expect(result.execution_status).toBe("succeeded");
      expect(existsSync(marker)).toBe(true);
      expect(existsSync(gitMarker)).toBe(false);
    },
  );
});
