import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ResidentBytes } from "../../workers/resident-bytes.ts";

describe("ResidentBytes", () => {
  test("reads the process's own resident size from statm, as the runtime counts it", () => {
    const resident = new ResidentBytes();
    try {
      expect(resident.fromStatm).toBe(process.platform === "linux");
      const before = process.memoryUsage.rss();
      const read = resident.read();
      const after = process.memoryUsage.rss();
      // The same figure, within what the few allocations between the reads may add or free.
      expect(read).toBeGreaterThan(Math.min(before, after) - (4 << 20));
      expect(read).toBeLessThan(Math.max(before, after) + (4 << 20));
      // Memory touched now shows in the next read, not a cached one, still as the runtime counts
      // it. The block is large: in a busy test process other memory may be freed meanwhile (a
      // 64 MiB block once showed as 43 MiB of growth).
      const block = new Uint8Array(256 << 20);
      block.fill(1);
      const grown = resident.read();
      expect(Math.abs(grown - process.memoryUsage.rss())).toBeLessThan(4 << 20);
      expect(grown - read).toBeGreaterThan(128 << 20);
      expect(block[block.length - 1]).toBe(1);
    } finally {
      resident.close();
    }
  });

  test("text that is not statm's, or no file at all, falls back to the runtime's figure", () => {
    const dir = mkdtempSync(join(tmpdir(), "flameox-statm-"));
    try {
      for (const text of ["", "12 abc 7\n", "12\n"]) {
        const path = join(dir, "statm");
        writeFileSync(path, text);
        const resident = new ResidentBytes(path);
        expect(resident.fromStatm).toBe(false);
        const read = resident.read();
        expect(Math.abs(read - process.memoryUsage.rss())).toBeLessThan(16 << 20);
        resident.close();
      }
      const missing = new ResidentBytes(join(dir, "none"));
      expect(missing.read()).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
