/**
 * Lines of a text payload that arrives in chunks, for the line-oriented profile formats
 * (perf script, collapsed stacks). Decoding is streaming, so a multi-byte character split
 * over two chunks stays whole; UTF-16 (LE or BE) is recognised by its byte order mark,
 * as text editors on Windows save collapsed files that way; a UTF-8 BOM is dropped.
 * Lines end at LF; a trailing CR is removed (CRLF files). A line longer than `maxLineChars`
 * is refused instead of being buffered without bound: a binary payload without newlines
 * must not grow the worker.
 */
import { parseFailed } from "../json-guard.ts";

/**
 * Longer than any frame or stack line a real profiler writes (a collapsed stack of ~10k frames).
 */
export const DEFAULT_MAX_LINE_CHARS = 4 << 20;

export type OnLine = (line: string, lineNumber: number) => void;

function encodingOf(head: Uint8Array): { encoding: string; bom: number } {
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: "utf-16le", bom: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: "utf-16be", bom: 2 };
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf)
    return { encoding: "utf-8", bom: 3 };
  return { encoding: "utf-8", bom: 0 };
}

/** Splits pushed byte chunks into lines, synchronously (both extraction paths share it). */
export class LineSplitter {
  /** Encoding chosen from the byte order mark: utf-8, utf-16le or utf-16be. */
  encoding = "utf-8";
  lines = 0;
  private decoder: TextDecoder | null = null;
  private head = new Uint8Array(0);
  private carry = "";

  constructor(
    private readonly format: string,
    private readonly onLine: OnLine,
    private readonly maxLineChars = DEFAULT_MAX_LINE_CHARS,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.decoder !== null) {
      this.emit(this.decoder.decode(chunk, { stream: true }));
      return;
    }
    // The byte order mark needs the first three bytes, which a tiny first chunk may not hold.
    const joined = new Uint8Array(this.head.length + chunk.length);
    joined.set(this.head);
    joined.set(chunk, this.head.length);
    if (joined.length < 3) {
      this.head = joined;
      return;
    }
    this.start(joined);
  }

  finish(): void {
    if (this.decoder === null) this.start(this.head);
    this.emit(this.decoder!.decode());
    if (this.carry.length > 0) {
      const line = this.carry.endsWith("\r") ? this.carry.slice(0, -1) : this.carry;
      this.carry = "";
      this.onLine(line, ++this.lines);
    }
  }

  private start(bytes: Uint8Array): void {
    const found = encodingOf(bytes);
    this.encoding = found.encoding;
    this.decoder = new TextDecoder(found.encoding as "utf-8", { ignoreBOM: true });
    this.head = new Uint8Array(0);
    this.emit(this.decoder.decode(bytes.subarray(found.bom), { stream: true }));
  }

  private emit(text: string): void {
    const all = this.carry.length > 0 ? this.carry + text : text;
    let start = 0;
    for (;;) {
      const end = all.indexOf("\n", start);
      if (end < 0) break;
      const cut = end > start && all.charCodeAt(end - 1) === 13 ? end - 1 : end;
      if (cut - start > this.maxLineChars) throw this.tooLong();
      this.onLine(all.slice(start, cut), ++this.lines);
      start = end + 1;
    }
    this.carry = start === 0 ? all : all.slice(start);
    if (this.carry.length > this.maxLineChars) throw this.tooLong();
  }

  private tooLong() {
    return parseFailed(
      this.format,
      `line ${this.lines + 1} is longer than ${this.maxLineChars} characters (not a ` +
        `line-oriented text profile, or a corrupted one)`,
    );
  }
}

/** Feeds every chunk to a splitter and finishes it. */
export async function splitLines(
  chunks: AsyncIterable<Uint8Array>,
  splitter: LineSplitter,
): Promise<void> {
  for await (const chunk of chunks) splitter.push(chunk);
  splitter.finish();
}
