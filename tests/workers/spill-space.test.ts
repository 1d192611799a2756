/**
 * FileSpillSpace deletes a disposed file at once, or (removeLater, the parse worker's space) on
 * the runtime's I/O threads, where `removed()` says when every one is gone.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileSpillSpace } from "../../workers/spill-space.ts";

const dir = mkdtempSync(join(tmpdir(), "flameox-spill-space-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytes = new Uint8Array(1 << 20).fill(7);

describe("FileSpillSpace", () => {
  test("by default a disposed file is gone when dispose returns", () => {
    const sub = mkdtempSync(join(dir, "now-"));
    const space = new FileSpillSpace(sub);
    const file = space.create();
    file.append(bytes);
    expect(readdirSync(sub)).toHaveLength(1);
    file.dispose();
    expect(readdirSync(sub)).toEqual([]);
  });

  test("with removeLater, every disposed file is gone once removed() settles", async () => {
    const sub = mkdtempSync(join(dir, "later-"));
    const space = new FileSpillSpace(sub, undefined, undefined, true);
    const files = Array.from({ length: 4 }, () => space.create());
    for (const file of files) file.append(bytes);
    const paths = files.map((f) => f.path!);
    files[0]!.dispose();
    space.disposeAll();
    // Disposed files read nothing more; what is left on disk goes by removed().
    await space.removed();
    for (const path of paths) expect(existsSync(path)).toBe(false);
    expect(readdirSync(sub)).toEqual([]);
    // Nothing under way: settles at once.
    await space.removed();
  });

  test("a deletion that fails is reported by removed(), not left unhandled", async () => {
    const sub = mkdtempSync(join(dir, "fails-"));
    const space = new FileSpillSpace(sub, undefined, undefined, true);
    const file = space.create();
    file.append(bytes);
    // A file whose directory entry became a non-empty directory: rm without `recursive` refuses.
    rmSync(file.path!);
    mkdirSync(file.path!);
    writeFileSync(join(file.path!, "x"), "x");
    file.dispose();
    await Bun.sleep(20);
    await expect(space.removed()).rejects.toThrow();
  });
});
