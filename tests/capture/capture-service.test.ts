/**
 * Captures end to end in one process: shell metacharacters stay literal bytes, the child
 * sees none of the stripped variables, output past the cap is kept truncated and flagged
 * partial, a timed-out grandchild that ignores SIGTERM is gone, and a real `node
 * --cpu-prof` capture lands with its profile, extracted, with the hot function on top.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CaptureProject, captureProject } from "./capture-helpers.ts";

const TOML = `
[workloads.args]
argv = ["node", "workloads/print-args.js", "{text}", "*", "{{literal}", "--json={\\"a\\": 1}"]
[workloads.args.parameters]
text = ["$(touch pwned); echo *", "a;b|c&d > out.txt", "\`id\`"]

[workloads.env]
argv = ["env"]
environment = { MODE = "fast" }

[workloads.flood]
argv = ["head", "-c", "100000", "/dev/zero"]

[workloads.stubborn]
argv = ["sh", "workloads/ignore-term.sh"]
timeout_seconds = 1

[workloads.checked]
argv = ["node", "workloads/print-args.js", "{v}"]
parameters = { v = ["ok", "bad"] }
[workloads.checked.oracle]
strength = "execution_check"
argv = ["node", "-e", "process.exit(process.argv[1] === 'ok' ? 0 : 3)", "{v}"]

[workloads.hot]
argv = ["node", "workloads/hot.js", "{ms}"]
parameters = { ms = [300] }
timeout_seconds = 60
`;

let p: CaptureProject;
beforeAll(async () => {
  p = await captureProject(TOML, {
    execution: { max_output_bytes: 4096, graceful_shutdown_seconds: 0.3 },
  });
});
afterAll(() => p.cleanup());

const stdoutOf = (result: { artifacts: { role: string; artifact_id: string }[] }) =>
  p.bytes(result.artifacts.find((a) => a.role === "stdout")!.artifact_id).toString();

describe("capture through the broker", () => {
  test("shell metacharacters, globs and braces reach the child as plain bytes", async () => {
    for (const text of ["$(touch pwned); echo *", "a;b|c&d > out.txt", "`id`"]) {
      const result = await (await p.service.capture()).run({
        adapter: "command",
        workload: "args",
        parameters: { text },
      });
      expect(result.execution_status).toBe("succeeded");
      expect(JSON.parse(stdoutOf(result))).toEqual([text, "*", "{literal}", '--json={"a": 1}']);
    }
    expect(existsSync(join(p.root, "pwned"))).toBe(false);
    expect(existsSync(join(p.root, "out.txt"))).toBe(false);
  });

  test(
    "the child sees none of the stripped variables, only the allowlist and the declared " +
      "environment",
    async () => {
      const planted = {
        LD_PRELOAD: "/nonexistent/evil.so",
        LD_LIBRARY_PATH: "/nonexistent",
        PYTHONPATH: "/nonexistent",
        BASH_ENV: "/nonexistent/rc",
        NODE_OPTIONS: "--max-old-space-size=4096",
        GITHUB_TOKEN: "ghp_secret",
        AWS_SECRET_ACCESS_KEY: "aws-secret",
        DB_PASSWORD: "hunter2",
        FLAMEOX_TEST_UNLISTED: "not-allowlisted",
      };
      const saved = Object.fromEntries(Object.keys(planted).map((k) => [k, process.env[k]]));
      Object.assign(process.env, planted);
      try {
        const result = await (await p.service.capture()).run({
          adapter: "command",
          workload: "env",
        });
        const names = stdoutOf(result)
          .trim()
          .split("\n")
          .map((line) => line.split("=")[0]);
        for (const name of Object.keys(planted)) expect(names).not.toContain(name);
        // HOME is the account's home from the password database, never copied from flameox's
        // environment.
        expect(names).toContain("HOME");
        expect(names).toContain("PATH");
        expect(stdoutOf(result)).toContain("MODE=fast");
      } finally {
        for (const [k, v] of Object.entries(saved))
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
      }
    },
  );

  test("output over the cap is kept truncated in the artifact and flagged partial", async () => {
    const result = await (await p.service.capture()).run({ adapter: "command", workload: "flood" });
    const stdout = result.artifacts.find((a) => a.role === "stdout")!;
    expect(stdout).toMatchObject({
      kind: "process_output",
      byte_length: 4096,
      partial: true,
      produced_bytes: 100_000,
    });
    expect(p.bytes(stdout.artifact_id).length).toBe(4096);
    expect(result.limitations.map((l) => l.code)).toContain("stdout_truncated");
    expect(result.artifacts.find((a) => a.role === "stderr")!.partial).toBe(false);
  });

  test(
    "a workload whose grandchild ignores SIGTERM is fully gone after its timeout; the run says " +
      "timed_out and which signals were sent",
    async () => {
      const result = await (await p.service.capture()).run({
        adapter: "command",
        workload: "stubborn",
      });
      expect(result.execution_status).toBe("timed_out");
      expect(result.termination.kind).toBe("timeout");
      const signals = result.termination.signals_sent.map((s) => `${s.signal}→${s.target}`);
      expect(signals.slice(0, 2)).toEqual(["SIGTERM→group", "SIGKILL→group"]);
      // A descendant the subreaper adopted while the group was being killed gets its own
      // SIGKILL; whether that happens depends on timing, never on anything else.
      expect(signals.slice(2).every((s) => s === "SIGKILL→descendant")).toBe(true);
      const grandchild = Number(/grandchild (\d+)/.exec(stdoutOf(result))![1]);
      const stat = existsSync(`/proc/${grandchild}/stat`)
        ? readFileSync(`/proc/${grandchild}/stat`, "utf8")
        : "";
      expect(stat === "" || / Z /.test(stat)).toBe(true);
      const run = p.service.getRun(result.run_id);
      expect(run).toMatchObject({
        run_type: "execution",
        execution_status: "timed_out",
        error: { code: "PROCESS_TIMEOUT" },
      });
      expect(
        (run.execution!.execution as { termination: { signals_sent: unknown[] } }).termination
          .signals_sent,
      ).toEqual(result.termination.signals_sent);
    },
  );

  test(
    "the declared oracle validates a successful capture; its verdict is a status of " + "its own",
    async () => {
      const passed = await (await p.service.capture()).run({
        adapter: "command",
        workload: "checked",
        parameters: { v: "ok" },
      });
      expect(passed).toMatchObject({
        execution_status: "succeeded",
        validation_status: "passed",
        validation: { strength: "execution_check", exit_code: 0 },
      });
      const failed = await (await p.service.capture()).run({
        adapter: "command",
        workload: "checked",
        parameters: { v: "bad" },
      });
      expect(failed).toMatchObject({
        execution_status: "succeeded",
        validation_status: "failed",
        validation: { exit_code: 3 },
      });
      const roles = p.service
        .getRun(failed.run_id)
        .registrations.map((r) => r.role)
        .sort();
      expect(roles).toEqual(["oracle_stderr", "oracle_stdout", "stderr", "stdout"]);
    },
  );

  test("a real node --cpu-prof capture lands with its profile and hotspots find the hot " +
    "function", async () => {
    const result = await (await p.service.capture()).run({
      adapter: "v8-cpu",
      workload: "hot",
      parameters: { ms: 300 },
      adapterOptions: { interval_us: 250 },
    });
    expect(result).toMatchObject({
      execution_status: "succeeded",
      capture_status: "registered",
      extraction_status: "published",
      next_tool: "analyze_hotspots",
    });
    const profile = result.artifacts.find((a) => a.kind === "sample_profile")!;
    expect(profile.display_name).toEndWith(".cpuprofile");
    expect(result.extractions[0]).toMatchObject({ status: "published", adapter: "v8-cpuprofile" });
    const hotspots = await p.service.analyzeHotspots(result.run_id, { limit: 3 });
    expect(hotspots.items[0]!.function).toBe("burnHotspot");
    expect(hotspots.items[0]!.self_fraction).toBeGreaterThan(0.5);
    const run = p.service.getRun(result.run_id);
    expect(run.registrations.map((r) => r.role).sort()).toEqual(["output", "stderr", "stdout"]);
    expect(run.registrations.find((r) => r.role === "output")).toMatchObject({
      producer: "node",
      kind: "sample_profile",
    });
    // Identities are recorded; without git the source identity is partial and says why.
    expect(run.execution!.source_identity).toMatchObject({
      identity_quality: "partial",
      missing_fields: ["repository"],
    });
    const envFields = JSON.stringify(run.execution!.environment_identity);
    expect(envFields).toContain('"arch"');
    for (const secret of [process.env.HOME ?? "/root", "hostname"])
      expect(envFields).not.toContain(secret);
    expect(result.resources.peak_rss_bytes).toBeGreaterThan(0);
  }, 60_000);
});
