/**
 * A row buffer's cells as column vectors: a null row between lists is an empty list at its place
 * (its offsets carry on from the row before), and its validity bit says null.
 */
import { describe, expect, test } from "bun:test";
import { cellVector } from "../../src/storage/table-buffer-columns.ts";

describe("row buffer cells as columns", () => {
  test("null lists after lists keep the offsets rising", () => {
    const col = { name: "l", type: "list_utf8", nullable: true } as const;
    const v = cellVector(col, [["a", "b"], null, ["c"], undefined, null, ["d", "e", "f"]], 0, 6);
    if (v.type !== "list_utf8") throw new Error(`a ${v.type} vector`);
    expect(Array.from(v.listOffsets)).toEqual([0, 2, 2, 3, 3, 3, 6]);
    expect(new TextDecoder().decode(v.data)).toBe("abcdef");
    expect(v.nullCount).toBe(3);
    // Rows 0, 2 and 5 hold lists (bits past the last row are not rows).
    expect(v.valid!.length).toBe(1);
    expect(v.valid![0]! & 0b111111).toBe(0b100101);
    // A slice counts its rows from its own start.
    const slice = cellVector(col, [["x"], null, ["y", "z"]], 1, 3);
    if (slice.type !== "list_utf8") throw new Error(`a ${slice.type} vector`);
    expect(Array.from(slice.listOffsets)).toEqual([0, 0, 2]);
  });

  test("a null where the column is not nullable is refused at its row", () => {
    const col = { name: "l", type: "list_utf8", nullable: false } as const;
    expect(() => cellVector(col, [["a"], null], 0, 2)).toThrow(
      "Expected l to be set but row 1 is null",
    );
  });
});
