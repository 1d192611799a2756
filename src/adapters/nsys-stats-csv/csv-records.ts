/**
 * CSV records of one report, through csv-parse (RFC 4180: quoted fields hold commas, so a
 * C++ template name such as "void k<int, 4>(float *, int)" stays one cell). Records are
 * handed on one at a time and never collected: the parser is fed chunk by chunk with
 * backpressure. A record longer than MAX_RECORD_CHARS, or one
 * with another number of cells than the header, is a parse failure naming its line.
 */
import type * as Stream from "node:stream";
// csv-parse is loaded at the first CSV report (require), not by every process that loads the
// adapters.
import type * as CsvParse from "csv-parse";
import { parseFailed } from "../json-guard.ts";

/** A kernel's demangled name can be long, but not this long. */
const MAX_RECORD_CHARS = 1024 * 1024;

export type RecordHandler = (cells: string[], line: number) => void;

function options(fromLine: number) {
  return {
    from_line: fromLine,
    bom: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_CHARS,
    relax_column_count: false,
  } as const;
}

function failure(label: string, error: unknown): unknown {
  if (
    error instanceof Error &&
    "code" in error &&
    typeof error.code === "string" &&
    error.code.startsWith("CSV_")
  ) {
    const line = "lines" in error && typeof error.lines === "number" ? `line ${error.lines}: ` : "";
    return parseFailed(label, `${line}${error.message}`, error);
  }
  return error;
}

/**
 * Skips the header record: it is read from `headerLine` so the parser holds every row to its number
 * of cells.
 */
function afterHeader(onRecord: RecordHandler): RecordHandler {
  let header = true;
  return (cells, line) => {
    if (header) header = false;
    else onRecord(cells, line);
  };
}

/**
 * Every record after the header (at `headerLine`), in order, from a payload that arrives in
 * chunks; the parser's backpressure paces the reading.
 */
export async function eachStreamedRecord(
  chunks: AsyncIterable<Uint8Array>,
  headerLine: number,
  label: string,
  onRecord: RecordHandler,
): Promise<void> {
  const handle = afterHeader(onRecord);
  const parser = (require("csv-parse") as typeof CsvParse).parse({
    ...options(headerLine),
    info: true,
  });
  const { Readable } = require("node:stream") as typeof Stream;
  const source = Readable.from(chunks, { objectMode: false });
  source.on("error", (error) => parser.destroy(error));
  source.pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>)
      handle(item.record, item.info.lines);
  } catch (error) {
    throw failure(label, error);
  } finally {
    source.destroy();
  }
}
