/**
 * A killed CLI leaves nothing running: its parse worker dies with it, and `recover`
 * closes the run, its extraction and reclaims its staging. A worker that does outlive a
 * dead owner (no parent-death signal) is stopped by `recover`.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateCpuProfile } from "../../fixtures/generators/cpuprofile.ts";
import { cli, tempWorkspace } from "../helpers.ts";
import { killImportDuringParse, parseWorkersUnder } from "./kill-during-parse.ts";

describe("a killed CLI", () => {
  test("its parse worker dies with it and recover leaves no staging, run or extraction " +
    "open", async () => {
    const { root, cleanup } = await tempWorkspace();
    try {
      const input = join(root, "big.cpuprofile");
      await generateCpuProfile(input, 12_000_000);
      for (let kill = 0; kill < 2; kill++) {
        const { sawWorker, survivors } = await killImportDuringParse(root, input);
        expect(sawWorker).toBe(true);
        expect(survivors).toEqual([]);
      }
      const recovered = await cli(["recover", "--json"], { cwd: root });
      expect(recovered.code).toBe(0);
      expect(recovered.json.closed.length).toBe(2);
      expect(recovered.json.staging_reclaimed.length).toBeGreaterThanOrEqual(2);
      expect(recovered.json.extractions_closed).toBe(2);
      expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
      expect(parseWorkersUnder(root)).toEqual([]);
      const runs = (await cli(["runs", "list", "--json"], { cwd: root })).json.items;
      expect(
        runs.filter(
          (r: any) => r.capture_status === "running" || r.extraction_status === "running",
        ),
      ).toEqual([]);
      const validation = await cli(["validate", "--json"], { cwd: root });
      expect(validation.json.checks.filter((c: any) => c.status !== "passed")).toEqual([]);
    } finally {
      cleanup();
    }
  }, 120_000);

  test("recover stops a worker whose owner is gone and removes its staging", async () => {
    const { root, cleanup } = await tempWorkspace();
    try {
      // A stand-in for a worker that outlived its owner: its own process group, recorded in the
      // lease.
      const worker = Bun.spawn(["sleep", "60"], {
        detached: true,
        stdin: "ignore",
        stdout: "ignore",
        stderr: "ignore",
      });
      const startTime = (await Bun.file(`/proc/${worker.pid}/stat`).text())
        .split(") ")[1]!
        .split(" ")[19]!;
      const dead = Bun.spawnSync(["true"]);
      const bootId = (await Bun.file("/proc/sys/kernel/random/boot_id").text()).trim();
      const dir = join(root, ".diagnostics", "staging", "op_orphan");
      mkdirSync(join(dir, "out"), { recursive: true });
      writeFileSync(
        join(dir, "lease.json"),
        JSON.stringify({
          operation_id: "op_orphan",
          owner: { pid: dead.pid, boot_id: bootId, start_time: "1" },
          worker: { pid: worker.pid, start_time: startTime },
        }),
      );
      const warned = await cli(["validate", "--json"], { cwd: root });
      expect(warned.json.checks.find((c: any) => c.check === "staging")?.message).toContain(
        "recover",
      );
      const recovered = await cli(["recover", "--json"], { cwd: root });
      expect(recovered.json.staging_reclaimed).toEqual([
        { operation_id: "op_orphan", workers_killed: 1 },
      ]);
      await worker.exited;
      expect(worker.signalCode).toBe("SIGKILL");
      expect(existsSync(dir)).toBe(false);
    } finally {
      cleanup();
    }
  }, 60_000);
});
