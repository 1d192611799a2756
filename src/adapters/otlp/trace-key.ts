/**
 * A trace id's key among the distinct ones counted: its bytes two to a UTF-16 unit after a unit
 * that says its length (one to one with the bytes, as hex is, without a buffer and a decoder per
 * id: those were ~4% of a generated 100 MB request's parser thread). Only the proto stream's
 * pieces share these keys (piece-merge.ts), so they need not be the ids' hex.
 */
export function traceKey(u8: Uint8Array, at: number, length: number): string {
  if (length === 16)
    return String.fromCharCode(
      16,
      pair(u8, at),
      pair(u8, at + 2),
      pair(u8, at + 4),
      pair(u8, at + 6),
      pair(u8, at + 8),
      pair(u8, at + 10),
      pair(u8, at + 12),
      pair(u8, at + 14),
    );
  // Other lengths (malformed ids): 0xffff, the length in digits and a colon, then the bytes.
  let key = `\uffff${length}:`;
  for (let i = 0; i < length; i += 2)
    key += String.fromCharCode(u8[at + i]! | (i + 1 < length ? u8[at + i + 1]! << 8 : 0));
  return key;
}

function pair(u8: Uint8Array, at: number): number {
  return u8[at]! | (u8[at + 1]! << 8);
}
