/**
 * The worker's payload stream: plain, gzip and zstd payloads give the same bytes, in order,
 * with the head read ahead; corrupt compressed data and decompression bombs end typed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FlameoxError } from "../../src/domain/errors.ts";
import { openPayload, collectPayload } from "../../workers/payload-stream.ts";
import { corpusFile, loadPayload } from "../adapters/corpus-files.ts";

const dir = mkdtempSync(join(tmpdir(), "flameox-payload-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

async function failure(path: string, maxBytes: number): Promise<FlameoxError> {
  try {
    await collectPayload((await openPayload(path, maxBytes, 65536)).chunks);
  } catch (error) {
    if (error instanceof FlameoxError) return error;
    throw error;
  }
  throw new Error("the payload was read whole");
}

describe("payload stream", () => {
  // A corpus trace of several read chunks, with a head shorter than the whole.
  const plain = new Uint8Array(
    loadPayload(corpusFile("perfetto", "perfetto-repo-nested_tracks.perfetto-trace").path),
  );

  test(
    "plain, gzip and zstd payloads decompress to the same bytes, with the same " + "head",
    async () => {
      const forms = {
        none: plain,
        gzip: Bun.gzipSync(plain),
        zstd: Bun.zstdCompressSync(plain),
      } as const;
      for (const [compression, bytes] of Object.entries(forms)) {
        const payload = await openPayload(file(`p.${compression}`, bytes), 1 << 30, 65536);
        expect(payload.compression).toBe(compression as keyof typeof forms);
        expect(payload.head).toEqual(plain.subarray(0, 65536));
        expect(Buffer.compare(await collectPayload(payload.chunks), plain)).toBe(0);
      }
    },
  );

  test(
    "corrupt zstd is ARTIFACT_PARSE_FAILED; a zstd bomb stops at the decompression " + "budget",
    async () => {
      const zstd = Bun.zstdCompressSync(plain);
      const corrupt = zstd.slice();
      corrupt.fill(0x55, 8, 64);
      expect((await failure(file("corrupt.zst", corrupt), 1 << 30)).code).toBe(
        "ARTIFACT_PARSE_FAILED",
      );
      expect(
        (await failure(file("cut.zst", zstd.subarray(0, zstd.length >> 1)), 1 << 30)).code,
      ).toBe("ARTIFACT_PARSE_FAILED");
      const bomb = Bun.zstdCompressSync(new Uint8Array(64 << 20));
      expect(bomb.length).toBeLessThan(1 << 20);
      expect((await failure(file("bomb.zst", bomb), 4 << 20)).code).toBe("ARTIFACT_TOO_LARGE");
    },
  );
});
