/**
 * Where to cut a large Chrome trace into pieces that can be scanned at once: after its
 * events array's `[`, then near every `pieceBytes`, between two elements that look like
 * `}` `,` `{` (whitespace allowed around the comma). Looking is only a guess — such bytes
 * can sit inside a string or a nested array — and each piece's scan proves or disproves
 * its own ends (piece-scan.ts); a guess that was wrong costs a sequential scan, never a
 * wrong row. Only small windows of the file are read here.
 */
import type { PayloadFile } from "../adapter.ts";

export interface TracePiecePlan {
  /** Offsets in the file: the document (after a byte-order mark) starts at `documentStart`. */
  documentStart: number;
  /**
   * The end of the events array's `[`: every piece's scan reads [documentStart, prefixEnd) first.
   */
  prefixEnd: number;
  /**
   * [start, end) of each piece, in order; the first starts at prefixEnd, the last ends at the
   * file's end.
   */
  pieces: [number, number][];
}

/**
 * A prefix longer than this (keys before `traceEvents`) is not worth reading again for every piece.
 */
const MAX_PREFIX_BYTES = 1 << 20;
/** How far past each target a cut is looked for. */
const CUT_WINDOW_BYTES = 256 << 10;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

export async function planTracePieces(
  file: PayloadFile,
  pieceBytes: number,
): Promise<TracePiecePlan | null> {
  const head = await file.read(0, Math.min(file.size, MAX_PREFIX_BYTES));
  const documentStart = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  let at = documentStart;
  while (at < head.length && isSpace(head[at]!)) at++;
  let prefixEnd = -1;
  if (head[at] === 0x5b) {
    prefixEnd = at + 1;
  } else if (head[at] === 0x7b) {
    const match = /"traceEvents"[ \t\r\n]*:[ \t\r\n]*\[/.exec(
      new TextDecoder("latin1").decode(head.subarray(at)),
    );
    if (match) prefixEnd = at + match.index + match[0].length;
  }
  if (prefixEnd < 0 || file.size - prefixEnd < 2 * pieceBytes) return null;
  const pieces: [number, number][] = [];
  let start = prefixEnd;
  for (
    let target = prefixEnd + pieceBytes;
    target + pieceBytes / 2 < file.size;
    target += pieceBytes
  ) {
    if (target <= start) continue;
    const cut = findCut(await file.read(target, Math.min(file.size, target + CUT_WINDOW_BYTES)));
    if (cut === null) continue;
    pieces.push([start, target + cut.end]);
    start = target + cut.next;
  }
  pieces.push([start, file.size]);
  return pieces.length > 1 ? { documentStart, prefixEnd, pieces } : null;
}

/**
 * The first `}` ws* `,` ws* `{` in the window: the piece ends after the `}`, the next starts at the
 * `{`.
 */
function findCut(window: Uint8Array): { end: number; next: number } | null {
  for (let i = window.indexOf(0x7d); i >= 0; i = window.indexOf(0x7d, i + 1)) {
    let j = i + 1;
    while (j < window.length && isSpace(window[j]!)) j++;
    if (window[j] !== 0x2c) continue;
    j++;
    while (j < window.length && isSpace(window[j]!)) j++;
    if (window[j] === 0x7b) return { end: i + 1, next: j };
  }
  return null;
}
