/**
 * Quoting for hyperfine's `--shell=none` mode, which splits each command string with
 * shell-words rules (quotes and backslashes, no expansion, no shell). Every item is
 * single-quoted unless it is plainly safe, so the split gives back exactly the argv:
 * `$(…)`, `;` and globs stay literal bytes.
 */
const SAFE = /^[A-Za-z0-9_\-.,:/@%+=]+$/;

export function quoteWord(word: string): string {
  if (SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function joinWords(argv: readonly string[]): string {
  return argv.map(quoteWord).join(" ");
}

/** The inverse, shell-words style (for tests and for reading back a recorded command). */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new SyntaxError("Cannot split: unterminated single quote");
      word = (word ?? "") + text.slice(i + 1, end);
      i = end;
    } else if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i];
    } else if (c === " " || c === "\t" || c === "\n") {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}
