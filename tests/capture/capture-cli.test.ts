/**
 * The capture CLI as a user or agent runs it: workload list/show/approve, capture plan (no side
 * effects), capture run exit codes, ad hoc commands refused, and `recover` after a
 * `kill -9` of a capturing process: that run is closed as abandoned and its orphaned
 * workload stopped, while a live capture in another process is left alone.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, REPO, tempWorkspace } from "../helpers.ts";

const TOML = `# capture CLI test
[workloads.hot]
argv = ["node", "workloads/hot.js", "{ms}"]
parameters = { ms = { choices = [100, 200], default = 100 } }

[workloads.stubborn]
argv = ["sh", "workloads/ignore-term.sh"]
timeout_seconds = 1

[workloads.sleeper]
argv = ["sleep", "{seconds}"]
parameters = { seconds = ["30", "31"] }
timeout_seconds = 120
`;

let ws: { root: string; cleanup: () => void };
beforeAll(async () => {
  ws = await tempWorkspace();
  cpSync(join(REPO, "fixtures", "workloads"), join(ws.root, "workloads"), { recursive: true });
  writeFileSync(join(ws.root, "flameox.toml"), TOML);
  writeFileSync(
    join(ws.root, ".diagnostics", "config.toml"),
    "[execution]\ngraceful_shutdown_seconds = 0.3\n",
  );
});
afterAll(() => ws.cleanup());

const run = (args: string[]) => cli(args, { cwd: ws.root });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const live = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

describe("capture CLI", () => {
  test("workload list and show print the canonical definitions and their digests", async () => {
    const list = await run(["workload", "list", "--json"]);
    expect(list.code).toBe(0);
    expect(list.json).toMatchObject({
      state: "valid",
      path: "flameox.toml",
      next_tool: "plan_capture",
    });
    expect(list.json.workloads.map((w: { name: string }) => w.name)).toEqual([
      "hot",
      "sleeper",
      "stubborn",
    ]);
    const show = await run(["workload", "show", "hot", "--json"]);
    expect(show.json.workload).toMatchObject({
      name: "hot",
      cwd: ".",
      timeout_seconds: 300,
      parameters: { ms: { kind: "choices", choices: [100, 200], default: 100 } },
    });
    expect(show.json.workload.workload_definition_id).toBe(
      list.json.workloads[0].workload_definition_id,
    );
    expect((await run(["workload", "show", "nope", "--json"])).code).toBe(2);
    expect(
      list.json.workloads.map((w: { approval: { state: string } }) => w.approval.state),
    ).toEqual(["unapproved", "unapproved", "unapproved"]);
  });

  test(
    "nothing runs until a person approves it: capture refuses, workload approve --yes " +
      "approves",
    async () => {
      const refused = await run(["capture", "run", "command", "--workload", "hot", "--json"]);
      expect(refused.code).toBe(9);
      expect(refused.json.error).toMatchObject({
        code: "WORKLOAD_NOT_APPROVED",
        details: { approve_command: "flameox workload approve hot" },
      });
      expect(refused.json.error.message).toContain("`flameox workload approve hot`");
      for (const name of ["hot", "stubborn", "sleeper"]) {
        const approved = await run(["workload", "approve", name, "--yes", "--json"]);
        expect(approved.code).toBe(0);
        expect(approved.json).toMatchObject({
          workload: name,
          outcome: "approved",
          previous_state: "unapproved",
          approval: { state: "approved", approve_command: null },
        });
      }
      const list = await run(["workload", "list"]);
      expect(list.stdout).toMatch(/hot\s.*\sapproved\s+project_file/);
    },
  );

  test("capture plan previews without creating a run; ad hoc argv or cwd is refused", async () => {
    const plan = await run(["capture", "plan", "command", "--workload", "hot", "--json"]);
    expect(plan.code).toBe(0);
    expect(plan.json.workload.parameters).toEqual({ ms: 100 });
    expect(plan.json.command.argv.slice(1)).toEqual(["workloads/hot.js", "100"]);
    expect((await run(["runs", "list", "--json"])).json.total).toBe(0);
    const adHoc = await run([
      "capture",
      "run",
      "command",
      "--workload",
      "hot",
      "--json",
      "--cwd",
      "/",
      "--",
      "sh",
      "-c",
      "id",
    ]);
    expect(adHoc.code).toBe(2);
    expect(adHoc.json.error.code).toBe("INVALID_ARGUMENTS");
  });

  test("capture run exits 0 on success and 8 on a timeout, printing the run", async () => {
    const ok = await run([
      "capture",
      "run",
      "command",
      "--workload",
      "hot",
      "--parameters",
      '{"ms":100}',
      "--json",
    ]);
    expect(ok.code).toBe(0);
    expect(ok.json).toMatchObject({
      execution_status: "succeeded",
      containment: { state: "uncontained" },
    });
    const late = await run(["capture", "run", "command", "--workload", "stubborn"]);
    expect(late.code).toBe(8);
    expect(late.stdout).toContain("execution timed_out");
    expect(late.stdout).toMatch(/signals sent: SIGTERM→group@\d+ms, SIGKILL→group@\d+ms/);
  });

  test("recover after kill -9 closes that run, stops its orphan, and leaves a live " +
    "capture alone", async () => {
    const start = (seconds: string) =>
      Bun.spawn(
        [
          process.execPath,
          join(REPO, "src", "cli", "main.ts"),
          "capture",
          "run",
          "command",
          "--workload",
          "sleeper",
          "--parameters",
          JSON.stringify({ seconds }),
          "--json",
        ],
        {
          cwd: ws.root,
          env: { ...process.env, NO_COLOR: "1" },
          stdout: "pipe",
          stderr: "pipe",
        },
      );
    const doomed = start("30");
    const survivor = start("31");
    const db = new Database(join(ws.root, ".diagnostics", "control.sqlite"), { readonly: true });
    const leases = () =>
      db
        .query(
          "SELECT run_id, lease_pid, json_extract(execution_json, '$.workload_process.pid') " +
            "AS workload FROM runs WHERE execution_status = 'running' AND " +
            "json_extract(execution_json, '$.workload_process.pid') IS NOT NULL",
        )
        .all() as { run_id: string; lease_pid: number; workload: number }[];
    for (let i = 0; i < 200 && leases().length < 2; i++) await sleep(100);
    const byOwner = new Map(leases().map((l) => [l.lease_pid, l]));
    const doomedRun = byOwner.get(doomed.pid)!;
    const survivorRun = byOwner.get(survivor.pid)!;
    db.close();
    expect(doomedRun && survivorRun).toBeTruthy();

    process.kill(doomed.pid, "SIGKILL");
    await doomed.exited;
    expect(live(doomedRun.workload)).toBe(true); // the orphan outlives its parent until recovery

    const recovered = await run(["recover", "--json"]);
    expect(recovered.code).toBe(0);
    expect(recovered.json.closed).toEqual([
      expect.objectContaining({ run_id: doomedRun.run_id, orphaned_processes_killed: 1 }),
    ]);
    expect(recovered.json.closed[0].reason).toContain(`process ${doomed.pid} no longer exists`);
    expect(recovered.json.live).toEqual([{ run_id: survivorRun.run_id, pid: survivor.pid }]);
    await sleep(100);
    expect(live(doomedRun.workload)).toBe(false);
    const closed = (await run(["runs", "show", doomedRun.run_id, "--json"])).json;
    expect(closed).toMatchObject({
      execution_status: "failed",
      capture_status: "failed",
      error: { code: "RUN_ABANDONED" },
    });
    expect(closed.limitations.map((l: { code: string }) => l.code)).toContain("abandoned");
    expect((await run(["runs", "show", survivorRun.run_id, "--json"])).json.execution_status).toBe(
      "running",
    );

    // A polite stop of the live capture cancels it cleanly; nothing is left to recover.
    process.kill(survivor.pid, "SIGTERM");
    expect(await survivor.exited).toBe(8);
    expect(live(survivorRun.workload)).toBe(false);
    expect((await run(["runs", "show", survivorRun.run_id, "--json"])).json).toMatchObject({
      execution_status: "cancelled",
      capture_status: "cancelled",
    });
    expect((await run(["recover", "--json"])).json).toMatchObject({ closed: [], live: [] });
  }, 60_000);
});
