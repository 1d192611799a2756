/**
 * coverage.py's numbits: a set of line numbers as a little-endian bitmap, bit `n % 8` of
 * byte `n / 8` set when line n ran (`coverage.numbits.numbits_to_nums`).
 */
export function numbitsToLines(numbits: Uint8Array): number[] {
  const lines: number[] = [];
  for (let byte = 0; byte < numbits.length; byte++) {
    const bits = numbits[byte]!;
    if (bits === 0) continue;
    for (let bit = 0; bit < 8; bit++) if (bits & (1 << bit)) lines.push(byte * 8 + bit);
  }
  return lines;
}
