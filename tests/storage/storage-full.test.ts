/**
 * Disk full: a workspace on a 2 MiB tmpfs, filled to leave a little less or a little more
 * than an import needs at each stage (copying, registering, parsing, publishing). Every
 * import either succeeds or fails with STORAGE_FULL (exit 10): never INTERNAL_ERROR, never
 * a parse failure with a quarantine record, never a run left open, never a truncated
 * payload in the store; the workspace stays valid and imports again once space is freed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { generateCpuProfile } from "../../fixtures/generators/cpuprofile.ts";
import { cli, tempDir } from "../helpers.ts";

const mountDir = tempDir("flameox-enospc-");
let mounted = false;

beforeAll(() => {
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mountDir.path]);
  mounted = mount.exitCode === 0;
});

afterAll(() => {
  if (mounted) Bun.spawnSync(["umount", mountDir.path]);
  mountDir.cleanup();
});

const freeBytes = (path: string) => {
  const s = statfsSync(path);
  return Number(s.bavail) * Number(s.bsize);
};

describe("a full file system", () => {
  test("imports fail typed as STORAGE_FULL at every stage and leave the workspace " +
    "valid", async () => {
    // Mounting needs CAP_SYS_ADMIN; this suite's lane runs as root (see docs/safety.md).
    expect(mounted).toBe(true);
    const root = join(mountDir.path, "project");
    mkdirSync(root);
    expect((await cli(["init", root, "--json"], { cwd: root })).code).toBe(0);
    const source = tempDir();
    try {
      const profile = join(source.path, "p.cpuprofile");
      await generateCpuProfile(profile, 1_000_000, 3);
      const input = join(source.path, "p.cpuprofile.gz");
      writeFileSync(input, gzipSync(await Bun.file(profile).bytes()));
      const inputBytes = Bun.file(input).size;
      const filler = join(mountDir.path, "filler");
      const outcomes: string[] = [];
      let extractionStage = 0;
      // From too little for the copy to enough for everything but the evidence, and more.
      for (const margin of [-64, 24, 64, 80, 96, 112, 128, 192].map((k) => k * 1024)) {
        rmSync(filler, { force: true });
        writeFileSync(
          filler,
          new Uint8Array(Math.max(0, freeBytes(mountDir.path) - inputBytes - margin)),
        );
        const result = await cli(["import", input, "--json"], { cwd: root });
        const code = result.json?.error?.code ?? "ok";
        outcomes.push(`${margin / 1024}K:${code}`);
        if (result.json?.error?.details?.extraction_id) extractionStage += 1;
        expect([0, 10]).toContain(result.code ?? -1);
        expect(["ok", "STORAGE_FULL"]).toContain(code);
      }
      rmSync(filler, { force: true });
      expect(readdirSync(join(root, ".diagnostics", "quarantine"))).toEqual([]);
      expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
      const runs = (await cli(["runs", "list", "--limit", "100", "--json"], { cwd: root })).json
        .items;
      const open = runs.filter(
        (r: any) =>
          ["pending", "running"].includes(r.capture_status) ||
          ["pending", "running"].includes(r.extraction_status),
      );
      expect(open).toEqual([]);
      expect(runs.filter((r: any) => r.error?.code === "STORAGE_FULL").length).toBeGreaterThan(0);
      const validation = await cli(["validate", "--full", "--json"], { cwd: root });
      expect(validation.json.checks.filter((c: any) => c.status === "failed")).toEqual([]);
      expect(outcomes.filter((o) => o.endsWith("STORAGE_FULL")).length).toBeGreaterThan(1);
      // At least one margin let the copy through and ran out while extracting or publishing.
      expect({ outcomes, extractionStage: extractionStage > 0 }).toEqual({
        outcomes,
        extractionStage: true,
      });
      const again = await cli(["import", input, "--json"], { cwd: root });
      expect(again.code).toBe(0);
    } finally {
      source.cleanup();
    }
  }, 120_000);
});
