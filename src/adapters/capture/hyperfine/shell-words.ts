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
