/**
 * Source locations in text tables. A location can be a whole `data:` URL or a generated
 * bundle path hundreds of characters long, which pushes every other column off the
 * screen; text output keeps its start (the scheme and host or directory) and its end (the
 * file name and line) around an ellipsis. `--json` prints locations whole.
 */
export const MAX_LOCATION_CHARS = 80;

/** `text` with its middle replaced by "…" when longer than `max` characters (code points). */
export function shortenMiddle(text: string, max = MAX_LOCATION_CHARS): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const tail = Math.floor((max - 1) / 2);
  const head = max - 1 - tail;
  return `${chars.slice(0, head).join("")}…${chars.slice(chars.length - tail).join("")}`;
}

/** "file:line" for a table cell, the file shortened so the line number always shows. */
export function shortLocation(file: string, line: number | null): string {
  const suffix = line ? `:${line}` : "";
  return `${shortenMiddle(file, MAX_LOCATION_CHARS - suffix.length)}${suffix}`;
}
