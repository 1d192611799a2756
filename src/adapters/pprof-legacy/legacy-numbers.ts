/**
 * Numbers in legacy profiles are untrusted text or words. Go parses them as int64/uint64;
 * flameox keeps values as JavaScript numbers, so anything past 2^53 would silently lose
 * precision: such values are rejected as malformed instead. Addresses stay bigint (64-bit).
 */
import { parseFailed } from "../json-guard.ts";
import { LEGACY_FORMAT } from "./legacy-profile.ts";

const MAX_ADDRESS = (1n << 64n) - 1n;
const DECIMAL = /^[+-]?\d+$/;
const HEX = /^0x[0-9a-f]+$/i;
/**
 * What follows `@` on a sample line; Go's regexps stop the address list at the first other
 * character.
 */
const ADDRESS_RUN = /^[ x0-9a-f]*/;
const HEX_NUMBER = /0x[0-9a-f]+/g;

/** A decimal (or, like Go's base-0 ParseInt, 0x-prefixed) integer that fits a double exactly. */
export function integerOf(text: string, what: string): number {
  const t = text.trim();
  const value = DECIMAL.test(t) ? Number(t) : HEX.test(t) ? Number(BigInt(t)) : Number.NaN;
  if (Number.isNaN(value))
    throw parseFailed(LEGACY_FORMAT, `${what} is not an integer: ${t.slice(0, 40)}`);
  return safe(value, what);
}

/** A word of a binary profile as a count. */
export function countOf(word: bigint, what: string): number {
  if (word > BigInt(Number.MAX_SAFE_INTEGER))
    throw parseFailed(LEGACY_FORMAT, `${what} ${word} is too large`);
  return Number(word);
}

/** Fails when a value (a count times a period, a scaled size) is no longer exact. */
export function safe(value: number, what: string): number {
  if (!Number.isSafeInteger(value))
    throw parseFailed(LEGACY_FORMAT, `${what} ${value} is out of range`);
  return value;
}

/** The hex addresses after a sample's `@`, in order (leaf first). */
export function addressesAfterAt(rest: string): bigint[] {
  const run = ADDRESS_RUN.exec(rest)![0];
  const out: bigint[] = [];
  for (const hex of run.match(HEX_NUMBER) ?? []) {
    const address = BigInt(hex);
    if (address > MAX_ADDRESS)
      throw parseFailed(LEGACY_FORMAT, `address ${hex.slice(0, 40)} is wider than 64 bits`);
    out.push(address);
  }
  return out;
}

/**
 * Return addresses point after the call; they are moved back by one so they land on the
 * call instruction. CPU profiles keep the leaf as is — it is the interrupted instruction,
 * not a return address (legacy_profile.go parseCPUSamples: `if adjust && i > 0`). Heap
 * and contention stacks are recorded from inside the allocator or lock, so every address,
 * the leaf included, is a return address (parseHeap, parseContention: `addr--` for all).
 * uint64 arithmetic: 0 wraps, as in Go.
 */
export function callSites(
  addresses: bigint[],
  leaf: "cpu_leaf_kept" | "all_return_addresses",
): bigint[] {
  return addresses.map((a, i) =>
    i === 0 && leaf === "cpu_leaf_kept" ? a : BigInt.asUintN(64, a - 1n),
  );
}
