/**
 * Reads a `list<utf8>` Arrow column (the stacks' frame id paths) row by row without one
 * Vector object per row: the list and string offsets are walked directly. Frame ids are
 * ASCII, so each chunk's string bytes decode once into one JS string and every id is a
 * slice of it; a chunk with other bytes falls back to decoding each string. Items may also be
 * dictionary indices (List<Dictionary<Int32, Utf8>>, what stacks are written as): the
 * dictionary's strings are decoded once per chunk.
 */
import type { Vector } from "apache-arrow/Arrow.dom";

interface ListData {
  offset: number;
  length: number;
  valueOffsets: Int32Array;
  children: {
    offset: number;
    valueOffsets: Int32Array;
    values: Uint8Array | Int32Array;
    /** Set where the items are indices into it. */
    dictionary?: Vector;
  }[];
}

const decoder = new TextDecoder();

export function* listUtf8Rows(vector: Vector): Generator<string[]> {
  for (const chunk of vector.data as unknown as ListData[]) {
    const child = chunk.children[0]!;
    if (child.dictionary !== undefined) {
      yield* dictionaryRows(chunk, child.dictionary, child.values as Int32Array, child.offset);
      continue;
    }
    const strOffsets = child.valueOffsets;
    const bytes = child.values as Uint8Array;
    const ascii = isAscii(bytes);
    const text = ascii ? decoder.decode(bytes) : "";
    for (let row = 0; row < chunk.length; row++) {
      const start = chunk.valueOffsets[chunk.offset + row]!;
      const end = chunk.valueOffsets[chunk.offset + row + 1]!;
      const ids = new Array<string>(end - start);
      for (let k = start; k < end; k++) {
        const from = strOffsets[child.offset + k]!;
        const to = strOffsets[child.offset + k + 1]!;
        ids[k - start] = ascii ? text.slice(from, to) : decoder.decode(bytes.subarray(from, to));
      }
      yield ids;
    }
  }
}

/** Rows of a chunk whose items index `dictionary`. */
function* dictionaryRows(
  chunk: ListData,
  dictionary: Vector,
  indices: Int32Array,
  itemOffset: number,
): Generator<string[]> {
  const strings = dictionary.toArray() as string[];
  for (let row = 0; row < chunk.length; row++) {
    const start = chunk.valueOffsets[chunk.offset + row]!;
    const end = chunk.valueOffsets[chunk.offset + row + 1]!;
    const ids = new Array<string>(end - start);
    for (let k = start; k < end; k++) ids[k - start] = strings[indices[itemOffset + k]!]!;
    yield ids;
  }
}

function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! > 0x7f) return false;
  return true;
}
