import { afterEach, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  existsSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { STAGING_CHUNK_BYTES, stageArtifact } from "../../src/storage/cas.ts";
import { tempDir } from "../helpers.ts";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function dir() {
  const d = tempDir();
  cleanups.push(d.cleanup);
  return d.path;
}

describe("artifact staging", () => {
  test("hashes while streaming and copies the exact bytes", async () => {
    const d = dir();
    const bytes = new Uint8Array(9 * 1024 * 1024 + 17).map((_, i) => (i * 31) & 0xff);
    writeFileSync(join(d, "in.bin"), bytes);
    const staged = await stageArtifact(join(d, "in.bin"), join(d, "staging", "payload"), {
      maxBytes: 1 << 30,
    });
    expect(staged.sha256Hex).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(staged.byteLength).toBe(bytes.length);
    expect(statSync(staged.stagedPath).size).toBe(bytes.length);
  });

  test(
    "the pipelined copy reuses its buffers without corrupting a chunk still being " + "written",
    async () => {
      const d = dir();
      // Six chunks and a tail: every one of the three buffers is reused at least once.
      const bytes = new Uint8Array(6 * STAGING_CHUNK_BYTES + 4097).map(
        (_, i) => (i * 131 + Math.floor(i / STAGING_CHUNK_BYTES)) & 0xff,
      );
      writeFileSync(join(d, "in.bin"), bytes);
      const progress: number[] = [];
      const staged = await stageArtifact(join(d, "in.bin"), join(d, "staging", "payload"), {
        maxBytes: 1 << 30,
        onProgress: (done) => progress.push(done),
      });
      expect(staged.sha256Hex).toBe(createHash("sha256").update(bytes).digest("hex"));
      expect(Buffer.compare(readFileSync(staged.stagedPath), Buffer.from(bytes))).toBe(0);
      expect(progress.at(-1)).toBe(bytes.length);
      expect(progress.length).toBe(7);
    },
  );

  test("a cancelled copy stops and leaves no staged copy", async () => {
    const d = dir();
    writeFileSync(join(d, "in.bin"), new Uint8Array(12 * 1024 * 1024));
    const controller = new AbortController();
    const staging = join(d, "staging", "payload");
    const copy = stageArtifact(join(d, "in.bin"), staging, {
      maxBytes: 1 << 30,
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    await expect(copy).rejects.toMatchObject({ code: "PROCESS_CANCELLED" });
    expect(existsSync(staging)).toBe(false);
  });

  test("refuses a symbolic link", async () => {
    const d = dir();
    writeFileSync(join(d, "real.json"), "{}");
    symlinkSync(join(d, "real.json"), join(d, "link.json"));
    await expect(
      stageArtifact(join(d, "link.json"), join(d, "s", "p"), { maxBytes: 1e9 }),
    ).rejects.toMatchObject({ code: "ARTIFACT_REFUSED" });
  });

  test("refuses a FIFO without blocking", async () => {
    const d = dir();
    Bun.spawnSync(["mkfifo", join(d, "pipe")]);
    await expect(
      stageArtifact(join(d, "pipe"), join(d, "s", "p"), { maxBytes: 1e9 }),
    ).rejects.toMatchObject({ code: "ARTIFACT_REFUSED", message: expect.stringContaining("FIFO") });
  });

  test("refuses a device and a directory", async () => {
    const d = dir();
    await expect(
      stageArtifact("/dev/null", join(d, "s", "p"), { maxBytes: 1e9 }),
    ).rejects.toMatchObject({
      code: "ARTIFACT_REFUSED",
      message: expect.stringContaining("device"),
    });
    await expect(stageArtifact(d, join(d, "s", "p2"), { maxBytes: 1e9 })).rejects.toMatchObject({
      code: "ARTIFACT_REFUSED",
    });
  });

  test("refuses a file over the size limit before copying it", async () => {
    const d = dir();
    const path = join(d, "sparse.json");
    writeFileSync(path, "");
    Bun.spawnSync(["truncate", "-s", "64G", path]);
    await expect(
      stageArtifact(path, join(d, "s", "p"), { maxBytes: 4 * 1024 ** 3 }),
    ).rejects.toMatchObject({ code: "ARTIFACT_TOO_LARGE" });
    expect(existsSync(join(d, "s", "p"))).toBe(false);
  });

  test(
    "refuses a file that grows while it is being copied, and leaves no staged " + "copy",
    async () => {
      const d = dir();
      const path = join(d, "growing.json");
      writeFileSync(path, new Uint8Array(12 * 1024 * 1024));
      let grown = false;
      const staging = stageArtifact(path, join(d, "s", "p"), {
        maxBytes: 1e10,
        onProgress: () => {
          if (!grown) appendFileSync(path, "more bytes");
          grown = true;
        },
      });
      await expect(staging).rejects.toMatchObject({
        code: "ARTIFACT_REFUSED",
        message: expect.stringContaining("changed"),
      });
      expect(existsSync(join(d, "s", "p"))).toBe(false);
    },
  );
});
