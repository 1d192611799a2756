/**
 * Line-by-line reading of a text profile, the way legacy_profile.go reads it with
 * bufio ReadString('\n'): one line at a time, so a reader can stop at a section header
 * and hand the rest of the text to the next section's reader.
 */
export class TextLines {
  private at = 0;

  constructor(private readonly text: string) {}

  /** The next line without its line break (and a trailing \r), or null at the end. */
  next(): string | null {
    if (this.at >= this.text.length) return null;
    let end = this.text.indexOf("\n", this.at);
    if (end < 0) end = this.text.length;
    const line = this.text.slice(this.at, end);
    this.at = end + 1;
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  }

  /** Everything not read yet. */
  rest(): string {
    return this.at >= this.text.length ? "" : this.text.slice(this.at);
  }
}

/** Blank lines and `#` comments carry nothing (legacy_profile.go isSpaceOrComment). */
export function isSpaceOrComment(line: string): boolean {
  const t = line.trim();
  return t === "" || t.startsWith("#");
}

/** Lines that open the memory map section of a text profile. */
export function isMemoryMapHeader(line: string): boolean {
  return line.includes("--- Memory map: ---") || line.includes("MAPPED_LIBRARIES:");
}

/**
 * Skips to the memory map section (unrecognized sections in between are ignored, as in
 * parseAdditionalSections) and returns its text; "" when there is none. `current` is the
 * line the sample reader stopped at.
 */
export function memoryMapText(current: string | null, lines: TextLines): string {
  let line = current;
  while (line !== null && !isMemoryMapHeader(line)) line = lines.next();
  return line === null ? "" : lines.rest();
}
