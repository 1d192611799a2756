/**
 * The inverse of shell-words.ts's quoting, shell-words style (quotes and backslashes, no
 * expansion): the oracle the quoting tests split hyperfine's command strings with.
 */
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
