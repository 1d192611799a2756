/**
 * Reads a `coverage_lines` part's columns for the recipe without a JS value per cell where
 * it matters. Rows are written file by file, so a file's path repeats over thousands of
 * consecutive rows: a string column is decoded once per run of equal bytes (and once per
 * dictionary entry when dictionary-encoded), and integer columns are read from their typed
 * buffers. A 3.5M-line part otherwise costs millions of decoded strings.
 */
import { makeVector, Type, type Data, type Vector } from "apache-arrow/Arrow.dom";

const decoder = new TextDecoder();

function sameBytes(values: Uint8Array, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (values[a + k] !== values[b + k]) return false;
  return true;
}

/** A string column as one entry per row, equal consecutive values sharing one string. */
export function stringCells(vector: Vector | null, rows: number): (string | null)[] {
  const out: (string | null)[] = new Array(rows).fill(null);
  if (!vector) return out;
  let i = 0;
  for (const data of vector.data as Data[]) {
    if (data.type.typeId === Type.Dictionary) {
      const dictionary = data.dictionary!;
      const words: (string | null)[] = Array.from(
        { length: dictionary.length },
        (_, k) => dictionary.get(k) as string | null,
      );
      const indices = data.values as ArrayLike<number>;
      for (let r = 0; r < data.length; r++, i++)
        out[i] = data.nullCount > 0 && !data.getValid(r) ? null : words[Number(indices[r])]!;
      continue;
    }
    if (data.type.typeId !== Type.Utf8) {
      const chunk = makeVector(data);
      for (let r = 0; r < data.length; r++, i++)
        out[i] = chunk.get(r) === null ? null : String(chunk.get(r));
      continue;
    }
    const offsets = data.valueOffsets as Int32Array;
    const values = data.values as Uint8Array;
    let previous: string | null = null;
    let previousStart = 0;
    let previousLength = -1;
    for (let r = 0; r < data.length; r++, i++) {
      if (data.nullCount > 0 && !data.getValid(r)) continue;
      const start = offsets[r]!;
      const length = offsets[r + 1]! - start;
      if (
        previous === null ||
        length !== previousLength ||
        !sameBytes(values, start, previousStart, length)
      ) {
        previous = decoder.decode(values.subarray(start, start + length));
        previousStart = start;
        previousLength = length;
      }
      out[i] = previous;
    }
  }
  return out;
}

/** An int32 column as numbers (NaN for null). */
export function int32Cells(vector: Vector | null, rows: number): Float64Array {
  const out = new Float64Array(rows).fill(Number.NaN);
  if (!vector) return out;
  let i = 0;
  for (const data of vector.data as Data[]) {
    const values = data.values as Int32Array;
    for (let r = 0; r < data.length; r++, i++)
      if (data.nullCount === 0 || data.getValid(r)) out[i] = values[r]!;
  }
  return out;
}

/** A boolean column as 0/1 (0 for null). */
export function boolCells(vector: Vector | null, rows: number): Uint8Array {
  const out = new Uint8Array(rows);
  if (!vector) return out;
  let i = 0;
  for (const data of vector.data as Data[]) {
    const chunk = makeVector(data);
    for (let r = 0; r < data.length; r++, i++) out[i] = chunk.get(r) === true ? 1 : 0;
  }
  return out;
}
