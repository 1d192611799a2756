/**
 * A plan binds everything and execution rechecks it: replayed, expired and foreign
 * tokens, an edited workload, a changed executable, changed source and a changed policy
 * are each refused with their own code, before any process or run exists.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CaptureService } from "../../src/application/capture/capture-service.ts";
import { type CaptureProject, captureProject } from "./capture-helpers.ts";

const TOML = `# bindings test
[workloads.script]
argv = ["./workloads/run.sh", "{word}"]
parameters = { word = ["hello"] }

[workloads.other]
argv = ["true"]
`;

let p: CaptureProject;
const runCount = () => p.service.listRuns({ limit: 200 }).total;

beforeAll(async () => {
  p = await captureProject(TOML, { git: false });
  writeFileSync(join(p.root, "workloads", "run.sh"), '#!/bin/sh\necho "$1"\n');
  chmodSync(join(p.root, "workloads", "run.sh"), 0o755);
});
afterAll(() => p.cleanup());

describe("plan bindings", () => {
  test("a plan previews what will run, bound by path and digest, and runs once", async () => {
    const preview = await (await p.service.capture()).plan({
      adapter: "command",
      workload: "script",
      parameters: { word: "hello" },
    });
    expect(preview.plan_id).toMatch(/^[0-9a-f]{64}$/);
    expect(preview.ttl_seconds).toBe(300);
    expect(preview.command.argv).toEqual(["./workloads/run.sh", "hello"]);
    expect(JSON.stringify(preview)).not.toContain(p.root);
    expect(preview.executables[0]).toMatchObject({
      requested: "./workloads/run.sh",
      trust: "project_bound",
      path: "workloads/run.sh",
    });
    expect(preview.containment).toMatchObject({
      mode: "trusted_local",
      state: "uncontained",
      network: "allowed",
    });
    expect(JSON.stringify(preview)).not.toContain(".diagnostics");
    const before = runCount();
    const result = await (await p.service.capture()).execute(preview.plan_id);
    expect(result.execution_status).toBe("succeeded");
    expect(runCount()).toBe(before + 1);
    await expect((await p.service.capture()).execute(preview.plan_id)).rejects.toMatchObject({
      code: "PLAN_CONSUMED",
    });
    expect(runCount()).toBe(before + 1);
  });

  test("expired and foreign plans are refused with their own codes", async () => {
    let now = 0;
    const clocked = new CaptureService(p.service.ws, { ttlMs: 1000, now: () => now });
    const expiring = await clocked.plan({ adapter: "command", workload: "other" });
    now += 1001;
    await expect(clocked.execute(expiring.plan_id)).rejects.toMatchObject({ code: "PLAN_EXPIRED" });
    const elsewhere = await new CaptureService(p.service.ws).plan({
      adapter: "command",
      workload: "other",
    });
    await expect((await p.service.capture()).execute(elsewhere.plan_id)).rejects.toMatchObject({
      code: "INVALID_CAPTURE_PLAN",
    });
  });

  test(
    "a workload edited after planning is WORKLOAD_CHANGED; editing another workload is " + "not",
    async () => {
      const file = join(p.root, "flameox.toml");
      const original = readFileSync(file, "utf8");
      try {
        const unrelated = await (await p.service.capture()).plan({
          adapter: "command",
          workload: "script",
          parameters: { word: "hello" },
        });
        appendFileSync(file, '\n[workloads.extra]\nargv = ["true"]\n');
        expect(
          (await (await p.service.capture()).execute(unrelated.plan_id)).execution_status,
        ).toBe("succeeded");

        const edited = await (await p.service.capture()).plan({
          adapter: "command",
          workload: "script",
          parameters: { word: "hello" },
        });
        writeFileSync(file, original.replace('word = ["hello"]', 'word = ["hello", "bye"]'));
        const before = runCount();
        await expect((await p.service.capture()).execute(edited.plan_id)).rejects.toMatchObject({
          code: "WORKLOAD_CHANGED",
        });
        expect(runCount()).toBe(before);
      } finally {
        writeFileSync(file, original);
      }
    },
  );

  test("an executable changed after planning is EXECUTABLE_CHANGED", async () => {
    const script = join(p.root, "workloads", "run.sh");
    const preview = await (await p.service.capture()).plan({
      adapter: "command",
      workload: "script",
      parameters: { word: "hello" },
    });
    writeFileSync(script, "#!/bin/sh\necho tampered\n");
    try {
      await expect((await p.service.capture()).execute(preview.plan_id)).rejects.toMatchObject({
        code: "EXECUTABLE_CHANGED",
      });
    } finally {
      writeFileSync(script, '#!/bin/sh\necho "$1"\n');
    }
  });

  test(
    "a workspace policy changed after planning is CONFIGURATION_CHANGED; a request cannot " +
      "loosen managed policy",
    async () => {
      const config = join(p.root, ".diagnostics", "config.toml");
      const original = readFileSync(config, "utf8");
      const preview = await (await p.service.capture()).plan({
        adapter: "command",
        workload: "other",
      });
      writeFileSync(
        config,
        original.replace("max_output_bytes = 16777216", "max_output_bytes = 1024"),
      );
      try {
        await expect((await p.service.capture()).execute(preview.plan_id)).rejects.toMatchObject({
          code: "CONFIGURATION_CHANGED",
        });
      } finally {
        writeFileSync(config, original);
      }
      writeFileSync(
        config,
        original.replace('containment = "trusted_local"', 'containment = "managed"'),
      );
      try {
        const strict = await (
          await import("../../src/application/workspace-service.ts")
        ).WorkspaceService.open({ workspace: p.root });
        await expect(
          (await strict.capture()).plan({
            adapter: "command",
            workload: "other",
            containment: "trusted_local",
          }),
        ).rejects.toMatchObject({ code: "EXECUTION_REFUSED" });
        strict.close();
      } finally {
        writeFileSync(config, original);
      }
    },
  );

  test("unknown adapters, workloads, parameters and options are refused at planning", async () => {
    await expect(
      (await p.service.capture()).plan({ adapter: "strace", workload: "other" }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    await expect(
      (await p.service.capture()).plan({ adapter: "command", workload: "missing" }),
    ).rejects.toMatchObject({ code: "WORKLOAD_NOT_FOUND" });
    await expect(
      (await p.service.capture()).plan({
        adapter: "command",
        workload: "script",
        parameters: { word: "$(id)" },
      }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    await expect(
      (await p.service.capture()).plan({
        adapter: "hyperfine",
        workload: "other",
        adapterOptions: { shell: "bash" },
      }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    await expect(
      (await p.service.capture()).plan({ adapter: "v8-cpu", workload: "other" }),
    ).rejects.toMatchObject({
      code: "CAPABILITY_UNAVAILABLE",
      details: { status: "incompatible" },
    });
  });
});

describe("source identity", () => {
  let g: CaptureProject;
  beforeAll(async () => {
    g = await captureProject('[workloads.other]\nargv = ["true"]\n', { git: true });
  });
  afterAll(() => g.cleanup());

  test(
    "a git project gets an exact identity; a source edit after planning is " + "SOURCE_CHANGED",
    async () => {
      const preview = await (await g.service.capture()).plan({
        adapter: "command",
        workload: "other",
      });
      expect(preview.source.identity_quality).toBe("clean");
      expect(preview.source.head_commit).toMatch(/^[0-9a-f]{40}$/);
      writeFileSync(join(g.root, "workloads", "hot.js"), "// edited\n");
      await expect((await g.service.capture()).execute(preview.plan_id)).rejects.toMatchObject({
        code: "SOURCE_CHANGED",
      });
      const dirty = await (await g.service.capture()).plan({
        adapter: "command",
        workload: "other",
      });
      expect(dirty.source.identity_quality).toBe("exact");
      expect(dirty.source.source_state_id).not.toBe(preview.source.source_state_id);
      writeFileSync(join(g.root, "untracked-input.txt"), "new input\n");
      const withUntracked = await (await g.service.capture()).plan({
        adapter: "command",
        workload: "other",
      });
      expect(withUntracked.source.source_state_id).not.toBe(dirty.source.source_state_id);
      expect(
        (await (await g.service.capture()).execute(withUntracked.plan_id)).execution_status,
      ).toBe("succeeded");
    },
  );
});
