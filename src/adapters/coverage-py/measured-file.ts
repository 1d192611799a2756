/**
 * What a coverage.py data file holds for one measured file and context: the lines and the
 * arcs that ran. Both data formats (SQLite and the legacy JSON) are read into this, then
 * written the same way. When arcs were measured coverage.py stores no lines: the lines
 * that ran are the positive ends of the arcs (`CoverageData.lines()`), and so are they here.
 */
import type { CoverageLineWriter } from "../coverage-lines/row-writer.ts";

export interface MeasuredFile {
  path: string;
  context: string | null;
  lines: number[];
  /** True while `lines` is known ascending and distinct (one numbits row), so it needs no sort. */
  sorted: boolean;
  arcs: [number, number][];
}

/** Files in the order their rows are written: by path, then context. */
export function sortMeasured(files: MeasuredFile[]): MeasuredFile[] {
  return files.sort((a, b) =>
    a.path < b.path
      ? -1
      : a.path > b.path
        ? 1
        : (a.context ?? "") < (b.context ?? "")
          ? -1
          : (a.context ?? "") > (b.context ?? "")
            ? 1
            : 0,
  );
}

/** One file's rows: its executed lines (those its arcs touch included), then its arcs. */
export function writeMeasuredFile(
  f: MeasuredFile,
  hasArcs: boolean,
  out: CoverageLineWriter,
): void {
  let lines = f.lines;
  if (!f.sorted || (hasArcs && f.arcs.length > 0)) {
    const set = new Set(f.lines);
    if (hasArcs)
      for (const [from, to] of f.arcs) {
        if (from > 0) set.add(from);
        if (to > 0) set.add(to);
      }
    lines = [...set].sort((a, b) => a - b);
  }
  for (const line of lines)
    out.add({ file: f.path, kind: "line", line, context: f.context, executed: true });
  const arcs = [...f.arcs].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [from, to] of arcs)
    out.add({
      file: f.path,
      kind: "arc",
      line: from,
      to_line: to,
      context: f.context,
      executed: true,
    });
}
