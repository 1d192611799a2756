/**
 * The engine's text order, for readers that sort without it: DuckDB compares VARCHAR by
 * UTF-8 bytes, which is code point order. JavaScript's `<` compares UTF-16 code units,
 * which differs only between a surrogate (U+D800–U+DFFF, i.e. a code point above U+FFFF)
 * and a unit at or above U+E000; shifting those two ranges restores code point order.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
