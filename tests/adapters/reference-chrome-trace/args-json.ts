/**
 * Reference: `args` → JSON text capped at maxArgsBytes (UTF-8). The cut never splits a character;
 * the text is then no longer valid JSON, which the `args_truncated` flag says.
 */
export class ArgsSerializer {
  private readonly maxBytes: number;
  private readonly scratch: Uint8Array;
  private readonly encoder = new TextEncoder();
  /** Whether the last `serialize` call cut its result. */
  truncated = false;

  constructor(maxBytes: number) {
    this.maxBytes = Math.max(0, Math.floor(maxBytes));
    this.scratch = new Uint8Array(this.maxBytes);
  }

  serialize(args: unknown): string | null {
    this.truncated = false;
    if (args === undefined) return null;
    const text = JSON.stringify(args);
    if (text === undefined) return null;
    // UTF-8 needs at most 3 bytes per UTF-16 unit: short texts fit without measuring.
    if (text.length * 3 <= this.maxBytes || Buffer.byteLength(text, "utf8") <= this.maxBytes)
      return text;
    this.truncated = true;
    const { read } = this.encoder.encodeInto(text, this.scratch);
    return text.slice(0, read);
  }
}
