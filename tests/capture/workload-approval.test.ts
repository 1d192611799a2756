/**
 * Approval from the CLI as a person (or a script) uses it: `workload approve` refuses
 * without a terminal unless --yes, asks on a terminal and approves only on yes, binds the
 * digest that was shown; any edit of the declaration (containment included) leaves it
 * unapproved; a plan made before its approval was revoked runs nothing; an older
 * approved form does not come back once a newer one was approved. And a workspace made
 * before approvals existed (control schema 2) is migrated in place.
 */
import { CONTROL_SCHEMA_VERSION } from "../../src/storage/control-schema.ts";
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { cli, REPO, tempWorkspace } from "../helpers.ts";
import { type CaptureProject, captureProject } from "./capture-helpers.ts";

const TOML = `[workloads.marker]
argv = ["sh", "-c", "echo ran > ran.txt"]
`;

describe("workload approve on the CLI", () => {
  let ws: { root: string; cleanup: () => void };
  beforeAll(async () => {
    ws = await tempWorkspace();
    writeFileSync(join(ws.root, "flameox.toml"), TOML);
  });
  afterAll(() => ws.cleanup());
  const run = (args: string[]) => cli(args, { cwd: ws.root });
  const state = async () =>
    (await run(["workload", "show", "marker", "--json"])).json.approval.state;

  test("without a terminal and without --yes it refuses with CONFIRMATION_REQUIRED; nothing is " +
    "approved, nothing runs", async () => {
    const refused = await run(["workload", "approve", "marker", "--json"]);
    expect(refused.code).toBe(2);
    expect(refused.json.error).toMatchObject({ code: "CONFIRMATION_REQUIRED" });
    expect(await state()).toBe("unapproved");
    const capture = await run(["capture", "run", "command", "--workload", "marker", "--json"]);
    expect(capture.code).toBe(9);
    expect(capture.json.error.code).toBe("WORKLOAD_NOT_APPROVED");
    expect(capture.json.error.message).toContain("`flameox workload approve marker`");
    expect(existsSync(join(ws.root, "ran.txt"))).toBe(false);
  }, 60_000);

  test("on a terminal it shows the canonical form and approves only when the person " +
    "answers yes", async () => {
    const onTerminal = (answer: string) => {
      // script(1) gives the command a pseudo-terminal and types `answer` into it.
      const child = Bun.spawnSync(
        [
          "script",
          "-qec",
          `${process.execPath} ${join(REPO, "src", "cli", "main.ts")} workload approve marker`,
          "/dev/null",
        ],
        {
          cwd: ws.root,
          stdin: Buffer.from(answer),
          env: { ...process.env, NO_COLOR: "1" },
        },
      );
      return { code: child.exitCode, out: child.stdout.toString() };
    };
    if (Bun.spawnSync(["sh", "-c", "command -v script"]).exitCode !== 0)
      throw new Error("script(1) from util-linux is needed to give the CLI a terminal");
    const declined = onTerminal("n\n");
    expect(declined.out).toContain('"sh",');
    expect(declined.out).toContain("Approve workload marker");
    expect(declined.out).toContain("not approved (declined)");
    expect(declined.code).toBe(1);
    expect(await state()).toBe("unapproved");
    const accepted = onTerminal("y\n");
    expect(accepted.code).toBe(0);
    expect(accepted.out).toContain("approved workload marker");
    const shown = (await run(["workload", "show", "marker", "--json"])).json;
    expect(shown.approval).toMatchObject({
      state: "approved",
      declared_by: "project_file",
      approved_by: expect.any(String),
      approve_command: null,
    });
  }, 60_000);

  test("approved, it runs; an edit of flameox.toml leaves it stale and refused until approved " +
    "again with --yes", async () => {
    const ran = await run(["capture", "run", "command", "--workload", "marker", "--json"]);
    expect(ran.code).toBe(0);
    expect(readFileSync(join(ws.root, "ran.txt"), "utf8")).toBe("ran\n");

    writeFileSync(join(ws.root, "flameox.toml"), TOML.replace("echo ran", "echo edited"));
    const list = (await run(["workload", "list", "--json"])).json;
    expect(list.workloads[0].approval).toMatchObject({
      state: "stale",
      approve_command: "flameox workload approve marker",
    });
    const refused = await run(["capture", "run", "command", "--workload", "marker", "--json"]);
    expect(refused.code).toBe(9);
    expect(refused.json.error).toMatchObject({
      code: "WORKLOAD_NOT_APPROVED",
      details: { state: "stale" },
    });
    expect(readFileSync(join(ws.root, "ran.txt"), "utf8")).toBe("ran\n");

    const wrongDigest = await run([
      "workload",
      "approve",
      "marker",
      "--yes",
      "--digest",
      list.workloads[0].approval.approved_workload_definition_id,
      "--json",
    ]);
    expect(wrongDigest.json.error.code).toBe("WORKLOAD_CHANGED");
    const approved = await run([
      "workload",
      "approve",
      "marker",
      "--yes",
      "--digest",
      list.workloads[0].workload_definition_id,
      "--json",
    ]);
    expect(approved.json).toMatchObject({
      outcome: "approved",
      previous_state: "stale",
      canonical: { argv: ["sh", "-c", "echo edited > ran.txt"] },
    });
    expect((await run(["workload", "approve", "marker", "--yes", "--json"])).json.outcome).toBe(
      "already_approved",
    );
    expect((await run(["capture", "run", "command", "--workload", "marker", "--json"])).code).toBe(
      0,
    );
    expect(readFileSync(join(ws.root, "ran.txt"), "utf8")).toBe("edited\n");
  }, 60_000);
});

describe("approval in the capture service", () => {
  let p: CaptureProject;
  const file = () => join(p.root, "flameox.toml");
  beforeAll(async () => {
    p = await captureProject(
      '[workloads.plain]\nargv = ["true"]\n\n[workloads.boxed]\nargv = ["true"]\ncontainment ' +
        '= "managed"\n',
      { approve: false },
    );
  });
  afterAll(() => p.cleanup());

  test(
    "a plan made before its approval was revoked is refused at execution, and no run is " +
      "recorded",
    async () => {
      const capture = await p.service.capture();
      capture.approveWorkload("plain");
      const plan = await capture.plan({ adapter: "command", workload: "plain" });
      expect(capture.revokeWorkload("plain")).toMatchObject({
        revoked: 1,
        approval: { state: "unapproved" },
      });
      await expect(capture.execute(plan.plan_id)).rejects.toMatchObject({
        code: "WORKLOAD_NOT_APPROVED",
      });
      expect(p.service.listRuns({ limit: 10 }).total).toBe(0);
    },
  );

  test(
    "only the newest approval counts: reverting the file to an older approved form leaves it " +
      "stale",
    async () => {
      const capture = await p.service.capture();
      const original = readFileSync(file(), "utf8");
      capture.approveWorkload("plain");
      writeFileSync(
        file(),
        original.replace(
          'argv = ["true"]\n\n[workloads.boxed]',
          'argv = ["true", "v2"]\n\n[workloads.boxed]',
        ),
      );
      expect(capture.showWorkload("plain").approval.state).toBe("stale");
      capture.approveWorkload("plain");
      writeFileSync(file(), original);
      expect(capture.showWorkload("plain").approval.state).toBe("stale");
      await expect(capture.plan({ adapter: "command", workload: "plain" })).rejects.toMatchObject({
        code: "WORKLOAD_NOT_APPROVED",
      });
    },
  );

  test(
    "declared containment is part of the approved form, and a plan cannot ask for " + "less",
    async () => {
      const capture = await p.service.capture();
      const boxed = capture.showWorkload("boxed");
      expect(boxed.canonical.containment).toBe("managed");
      // The same argv as `plain`: only the declared containment tells their digests apart.
      expect(boxed.workload.workload_definition_id).not.toBe(
        capture.showWorkload("plain").workload.workload_definition_id,
      );
      capture.approveWorkload("boxed");
      await expect(
        capture.plan({ adapter: "command", workload: "boxed", containment: "trusted_local" }),
      ).rejects.toMatchObject({ code: "EXECUTION_REFUSED" });
      // Dropping the declared containment is an edit like any other: the approval no longer
      // applies.
      writeFileSync(file(), readFileSync(file(), "utf8").replace('containment = "managed"\n', ""));
      expect(capture.showWorkload("boxed").approval.state).toBe("stale");
      expect(capture.showWorkload("boxed").workload.workload_definition_id).toBe(
        capture.showWorkload("plain").workload.workload_definition_id,
      );
    },
  );
});

describe("control schema migration", () => {
  test(
    "a version-2 workspace opens at the current version with an approvals table; " +
      "configure_workload's old source is renamed",
    async () => {
      const ws = await tempWorkspace();
      try {
        const path = join(ws.root, ".diagnostics", "control.sqlite");
        const db = new Database(path);
        // What version 2 had: no approvals (v3) and no HEAD log (v4).
        db.exec(
          "DROP TABLE workload_approvals; DROP TABLE corpus_head_log; PRAGMA user_version = 2",
        );
        db.query("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
        db.query(
          "INSERT INTO configuration_changes VALUES ('op_1', '2026-01-01T00:00:00.000Z', " +
            "'agent', 'create', 'w', NULL, 'sha256:a', 'sha256:b')",
        ).run();
        db.close();
        const service = await WorkspaceService.open({ workspace: ws.root });
        try {
          const control = service.ws.control.db;
          expect(
            (control.query("PRAGMA user_version").get() as { user_version: number }).user_version,
          ).toBe(CONTROL_SCHEMA_VERSION);
          expect(
            control.query("SELECT value FROM meta WHERE key = 'schema_version'").get(),
          ).toEqual({
            value: String(CONTROL_SCHEMA_VERSION),
          });
          expect(control.query("SELECT source FROM configuration_changes").all()).toEqual([
            { source: "mcp_client" },
          ]);
          expect(control.query("SELECT count(*) AS n FROM workload_approvals").get()).toEqual({
            n: 0,
          });
        } finally {
          service.close();
        }
      } finally {
        ws.cleanup();
      }
    },
  );
});
