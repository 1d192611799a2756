/** Malformed and hostile inputs each end as a typed error; the workspace stays valid. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SAMPLES, cli, tempDir, tempWorkspace } from "../helpers.ts";

let root: string;
let cleanup: () => void;
let outside: { path: string; cleanup: () => void };

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
  outside = tempDir();
  expect((await cli(["import", join(SAMPLES, "sample.cpuprofile")], { cwd: root })).code).toBe(0);
});
afterAll(() => {
  cleanup();
  outside.cleanup();
});

async function expectRefused(file: string, code: string, exit: number) {
  const r = await cli(["import", file, "--json"], { cwd: root });
  expect(r.json?.error?.code).toBe(code);
  expect(r.code).toBe(exit);
  expect(r.json.error.message).not.toMatch(/\n\s+at /);
  const v = await cli(["validate", "--json"], { cwd: root });
  expect(v.json.ok).toBe(true);
  return r;
}

describe("hostile inputs", () => {
  test(
    "truncated JSON is ARTIFACT_PARSE_FAILED with a quarantine record; the artifact is " + "kept",
    async () => {
      const file = join(root, "truncated.cpuprofile");
      const text = await Bun.file(join(SAMPLES, "sample.cpuprofile")).text();
      writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
      const r = await expectRefused(file, "ARTIFACT_PARSE_FAILED", 4);
      expect(r.json.error.run_id).toMatch(/^run_/);
      const quarantined = readdirSync(join(root, ".diagnostics", "quarantine"));
      expect(quarantined.length).toBeGreaterThan(0);
      const record = await Bun.file(
        join(root, ".diagnostics", "quarantine", quarantined[0]!),
      ).json();
      expect(record).toMatchObject({ run_id: r.json.error.run_id, code: "ARTIFACT_PARSE_FAILED" });
      const run = await cli(["runs", "show", r.json.error.run_id, "--json"], { cwd: root });
      expect(run.json.extraction_status).toBe("quarantined");
      // No evidence for it: hotspots are unavailable, never "zero hotspots".
      const hot = await cli(["analyze", "hotspots", r.json.error.run_id, "--json"], { cwd: root });
      expect(hot.json.evidence.status).toBe("unavailable");
      expect(hot.json.items).toEqual([]);
    },
  );

  test("wrong types are ARTIFACT_PARSE_FAILED", async () => {
    const file = join(root, "wrong-types.cpuprofile");
    writeFileSync(
      file,
      JSON.stringify({
        nodes: "not an array",
        samples: [1],
        timeDeltas: [1],
        startTime: 0,
        endTime: 1,
      }),
    );
    await expectRefused(file, "ARTIFACT_PARSE_FAILED", 4);
  });

  test("absurd nesting is ARTIFACT_PARSE_FAILED, not a stack overflow", async () => {
    const file = join(root, "deep.json");
    writeFileSync(file, `{"traceEvents":${"[".repeat(200_000)}${"]".repeat(200_000)}}`);
    await expectRefused(file, "ARTIFACT_PARSE_FAILED", 4);
  });

  test("a file of an unknown format is ARTIFACT_FORMAT_UNKNOWN", async () => {
    const file = join(root, "notes.txt");
    writeFileSync(file, "just some text, not a profile\n");
    await expectRefused(file, "ARTIFACT_FORMAT_UNKNOWN", 4);
  });

  test("a huge sparse file is ARTIFACT_TOO_LARGE before any copy", async () => {
    const file = join(root, "huge.json");
    writeFileSync(file, "");
    Bun.spawnSync(["truncate", "-s", "100G", file]);
    await expectRefused(file, "ARTIFACT_TOO_LARGE", 9);
    expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
  });

  test("a FIFO is refused", async () => {
    const fifo = join(root, "pipe.json");
    Bun.spawnSync(["mkfifo", fifo]);
    await expectRefused(fifo, "ARTIFACT_REFUSED", 9);
  });

  test("a symlink that escapes the root is refused", async () => {
    const target = join(outside.path, "secret.cpuprofile");
    writeFileSync(target, await Bun.file(join(SAMPLES, "sample.cpuprofile")).text());
    const link = join(root, "escape.cpuprofile");
    symlinkSync(target, link);
    await expectRefused(link, "ARTIFACT_REFUSED", 9);
  });

  test("a gzip bomb is stopped at the decompression budget", async () => {
    const file = join(root, "bomb.json.gz");
    writeFileSync(
      join(root, ".diagnostics", "config.toml"),
      "[storage]\nmax_decompressed_bytes = 1048576\n",
    );
    writeFileSync(file, Bun.gzipSync(new Uint8Array(16 * 1024 * 1024).fill(0x20)));
    try {
      await expectRefused(file, "ARTIFACT_TOO_LARGE", 9);
    } finally {
      writeFileSync(join(root, ".diagnostics", "config.toml"), "");
    }
  });

  test("a missing file is INVALID_ARGUMENTS", async () => {
    const r = await cli(["import", join(root, "nope.json"), "--json"], { cwd: root });
    expect(r.json.error.code).toBe("INVALID_ARGUMENTS");
    expect(existsSync(join(root, ".diagnostics"))).toBe(true);
  });
});
