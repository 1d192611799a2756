/** `validate --full` detects one flipped byte in an artifact payload and in a Parquet file. */
import { describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SAMPLES, cli, tempWorkspace } from "../helpers.ts";

function flipByte(path: string, at: number): void {
  chmodSync(path, 0o644);
  const bytes = readFileSync(path);
  bytes[at] = bytes[at]! ^ 0x01;
  writeFileSync(path, bytes);
}

describe("full validation", () => {
  test(
    "detects a flipped byte in an artifact payload (standard validation does not " + "rehash)",
    async () => {
      const { root, cleanup } = await tempWorkspace();
      try {
        const imported = (
          await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root })
        ).json;
        const hex = imported.artifact_id.slice(7);
        flipByte(join(root, ".diagnostics", "artifacts", "sha256", hex.slice(0, 2), hex), 100);
        expect((await cli(["validate", "--json"], { cwd: root })).json.ok).toBe(true);
        const full = await cli(["validate", "--full", "--json"], { cwd: root });
        expect(full.code).toBe(1);
        expect(full.json.ok).toBe(false);
        expect(
          full.json.checks.find((c: any) => c.check === `artifact:${imported.artifact_id}`)?.status,
        ).toBe("failed");
      } finally {
        cleanup();
      }
    },
  );

  test("detects a flipped byte in a Parquet evidence file", async () => {
    const { root, cleanup } = await tempWorkspace();
    try {
      const imported = (
        await cli(["import", join(SAMPLES, "sample-trace.json"), "--json"], { cwd: root })
      ).json;
      const dir = join(
        root,
        ".diagnostics",
        "evidence",
        "trace_events",
        imported.extraction.generation_id,
      );
      const file = join(dir, readdirSync(dir)[0]!);
      flipByte(file, 64);
      const full = await cli(["validate", "--full", "--json"], { cwd: root });
      expect(full.code).toBe(1);
      expect(
        full.json.checks.find(
          (c: any) => c.check === `generation:${imported.extraction.generation_id}`,
        )?.message,
      ).toContain("sha256");
    } finally {
      cleanup();
    }
  });
});
