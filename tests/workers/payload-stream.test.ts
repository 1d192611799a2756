/**
 * The worker's payload stream: plain, gzip and zstd payloads give the same bytes, in order,
 * with the head read ahead; corrupt compressed data and decompression bombs end typed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FlameoxError } from "../../src/domain/errors.ts";
import { landedArtifactId } from "../../workers/payload-landing.ts";
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

describe("a payload still landing", () => {
  const plain = new Uint8Array(
    loadPayload(corpusFile("perfetto", "perfetto-repo-nested_tracks.perfetto-trace").path),
  );

  test("a released chunk's memory is read into again; each chunk still holds its bytes", async () => {
    // 5.5 MiB of distinct bytes: six reads of 1 MiB.
    const bytes = new Uint8Array(5.5 * 2 ** 20);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    const payload = await openPayload(file("released.bin", bytes), 1 << 30, 1024);
    const seen = new Set<ArrayBufferLike>();
    const foreign: Uint8Array[] = [];
    let at = 0;
    for await (const chunk of payload.chunks) {
      // The chunk is checked (copied out, as a scanner does) before it is released, after a
      // wait long enough for a read ahead into the same memory, were there one, to land.
      await Bun.sleep(5);
      expect(Buffer.compare(chunk, bytes.subarray(at, at + chunk.length))).toBe(0);
      at += chunk.length;
      seen.add(chunk.buffer);
      payload.release?.(chunk);
      // A chunk released twice, or memory the reader did not make, is not taken twice.
      payload.release?.(chunk);
      foreign.push(new Uint8Array(2 ** 20));
      payload.release?.(foreign.at(-1)!);
    }
    expect(at).toBe(bytes.length);
    for (const memory of foreign) expect(seen.has(memory.buffer)).toBe(false);
    // One read ahead while one is worked on, and one released: never more than three buffers.
    expect(seen.size).toBeLessThanOrEqual(3);
  });

  test("chunks never released are each their own memory", async () => {
    const bytes = new Uint8Array(3.5 * 2 ** 20).fill(7);
    const payload = await openPayload(file("kept.bin", bytes), 1 << 30, 1024);
    const kept: Uint8Array[] = [];
    for await (const chunk of payload.chunks) kept.push(chunk);
    expect(new Set(kept.map((c) => c.buffer)).size).toBe(kept.length);
    expect(Buffer.compare(Buffer.concat(kept), bytes)).toBe(0);
  });

  test("is read as it grows, to exactly its announced size, whatever follows", async () => {
    const path = file("landing.bin", new Uint8Array(0));
    const landedFile = join(dir, "landed.json");
    // The copy lands in uneven pieces, with pauses the reader catches up through; then bytes
    // past the announced size appear, which the reader must not take.
    const pieces = [1, 3, 70_000, 1 << 20, 5, plain.length].map((n) => Math.min(n, plain.length));
    const landing = (async () => {
      for (const end of pieces) {
        await Bun.sleep(5);
        appendFileSync(path, plain.subarray(statSync(path).size, end));
      }
      appendFileSync(path, new Uint8Array(4096).fill(0x41));
    })();
    const payload = await openPayload(path, 1 << 30, 65536, undefined, undefined, {
      bytes: plain.length,
      landedFile,
    });
    expect(payload.compression).toBe("none");
    expect(payload.head).toEqual(plain.subarray(0, 65536));
    expect(Buffer.compare(await collectPayload(payload.chunks), plain)).toBe(0);
    await landing;
  });

  test("compressed, is read once it has landed whole", async () => {
    const gzip = Bun.gzipSync(plain);
    const path = file("landing.gz", gzip.subarray(0, 10));
    setTimeout(() => appendFileSync(path, gzip.subarray(10)), 20);
    const payload = await openPayload(path, 1 << 30, 65536, undefined, undefined, {
      bytes: gzip.length,
      landedFile: join(dir, "unused.json"),
    });
    expect(payload.compression).toBe("gzip");
    expect(Buffer.compare(await collectPayload(payload.chunks), plain)).toBe(0);
  });

  test("its id is taken from the landed file only for the announced size", async () => {
    const landedFile = join(dir, "landed-id.json");
    const id = landedArtifactId({ bytes: 42, landedFile });
    setTimeout(
      () =>
        writeFileSync(landedFile, JSON.stringify({ artifact_id: "sha256:ab", byte_length: 42 })),
      10,
    );
    expect(await id).toBe("sha256:ab");
    writeFileSync(landedFile, JSON.stringify({ artifact_id: "sha256:ab", byte_length: 41 }));
    await expect(landedArtifactId({ bytes: 42, landedFile })).rejects.toMatchObject({
      code: "INTERNAL_ERROR",
    });
  });
});
