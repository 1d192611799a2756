/**
 * Number tokens, resumable at any byte. Validates the JSON grammar (no leading zeros,
 * no bare `.` or `e`), computes the double exactly when Clinger's fast path applies
 * (≤ 2^53 mantissa, |exponent| ≤ 22) and otherwise asks the host, and decides whether
 * the literal is already in the form JavaScript prints (so captured text needs no
 * re-serialization).
 */
import { region } from "../common/regions";

@external("env", "parseNumber")
declare function hostParseNumber(ptr: usize, len: i32): f64;

const S_START: i32 = 0;
const S_MINUS: i32 = 1;
const S_ZERO: i32 = 2;
const S_INT: i32 = 3;
const S_DOT: i32 = 4;
const S_FRAC: i32 = 5;
const S_E: i32 = 6;
const S_ESIGN: i32 = 7;
const S_EXP: i32 = 8;

let buf: usize = 0;
let cap: usize = 0;
let len: usize = 0;
let state: i32 = S_START;
let tooLong: bool = false;

export function numberInit(bytes: usize): bool {
  buf = region(bytes);
  cap = bytes;
  return buf != 0;
}

export function numberBegin(): void {
  len = 0;
  state = S_START;
  tooLong = false;
}

@inline function isDigit(b: i32): bool { return b >= 0x30 && b <= 0x39; }

/**
 * Feeds one byte; returns false when the byte does not continue the number (it is not consumed).
 */
export function numberByte(b: i32): bool {
  let next = -1;
  switch (state) {
    case S_START: next = b == 0x2d ? S_MINUS : b == 0x30 ? S_ZERO : isDigit(b) ? S_INT : -1; break;
    case S_MINUS: next = b == 0x30 ? S_ZERO : isDigit(b) ? S_INT : -1; break;
    case S_ZERO:
      next = b == 0x2e ? S_DOT : (b == 0x65 || b == 0x45) ? S_E : isDigit(b) ? 99 : -1; break;
    case S_INT:
      next = isDigit(b) ? S_INT : b == 0x2e ? S_DOT : (b == 0x65 || b == 0x45) ? S_E : -1; break;
    case S_DOT: next = isDigit(b) ? S_FRAC : 99; break;
    case S_FRAC: next = isDigit(b) ? S_FRAC : (b == 0x65 || b == 0x45) ? S_E : -1; break;
    case S_E: next = (b == 0x2b || b == 0x2d) ? S_ESIGN : isDigit(b) ? S_EXP : 99; break;
    case S_ESIGN: next = isDigit(b) ? S_EXP : 99; break;
    case S_EXP: next = isDigit(b) ? S_EXP : -1; break;
  }
  if (next < 0) return false;
  state = next; // 99: a byte that makes the token invalid (reported by numberValid)
  if (len < cap) store<u8>(buf + len++, <u8>b);
  else tooLong = true;
  return next != 99;
}

/** Whether the bytes so far form a complete JSON number. */
export function numberValid(): bool {
  return state == S_ZERO || state == S_INT || state == S_FRAC || state == S_EXP;
}
export function numberTooLong(): bool { return tooLong; }
export function numberPtr(): usize { return buf; }
export function numberLen(): i32 { return <i32>len; }

const POW10: StaticArray<f64> = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

let canonical: bool = false;

/** The value of the completed token; also sets `numberCanonical()`. */
export function numberValue(): f64 { return numberValueAt(buf, len); }

/**
 * End of the valid number token starting at `p` (a `-` or a digit) when the whole token,
 * and the byte after it, lie before `end`; 0 when the token is invalid, too long or may
 * continue past `end`: the resumable tokenizer then takes it from `p`, and reports
 * errors exactly as it always does.
 */
@inline export function numberScan(p: usize, end: usize): usize {
  let q = p;
  const negative = load<u8>(q) == 0x2d;
  if (negative) q++;
  if (q >= end) return 0;
  let c = <u32>load<u8>(q);
  const intStart = q;
  let v: u64 = 0;
  if (c == 0x30) {
    q++;
    if (q >= end) return 0;
    c = <u32>load<u8>(q);
    if (c - 0x30 < 10) return 0; // a leading zero
  } else {
    if (c - 0x31 >= 9) return 0;
    do {
      v = v * 10 + <u64>(c - 0x30);
      if (++q >= end) return 0;
      c = <u32>load<u8>(q);
    } while (c - 0x30 < 10);
  }
  let simple = q - intStart <= 15;
  if (c == 0x2e) {
    const digits = ++q;
    while (q < end && <u32>load<u8>(q) - 0x30 < 10) q++;
    if (q == digits || q >= end) return 0;
    c = <u32>load<u8>(q);
    simple = false;
  }
  if ((c | 0x20) == 0x65) {
    q++;
    if (q < end && (load<u8>(q) == 0x2b || load<u8>(q) == 0x2d)) q++;
    const digits = q;
    while (q < end && <u32>load<u8>(q) - 0x30 < 10) q++;
    if (q == digits || q >= end) return 0;
    simple = false;
  }
  if (q - p > cap) return 0;
  // An integer of up to 15 digits (timestamps, ids) is an exact double, already canonical
  // unless it is -0.
  scannedSimple = simple;
  if (simple) {
    const f = <f64>v;
    scannedValue = negative ? -f : f;
    canonical = !(negative && v == 0);
  }
  return q;
}

let scannedSimple = false;
let scannedValue: f64 = 0;

/** The value of the token numberScan just found; also sets `numberCanonical()`. */
@inline export function numberScannedValue(p: usize, q: usize): f64 {
  return scannedSimple ? scannedValue : numberValueAt(p, q - p);
}

/** The value of the valid number token [ptr, ptr+n); also sets `numberCanonical()`. */
export function numberValueAt(ptr: usize, n: usize): f64 {
  let i: usize = 0;
  let negative = false;
  if (load<u8>(ptr) == 0x2d) { negative = true; i = 1; }
  // Plain integers of up to 15 digits (most timestamps and ids) are exact doubles.
  if (n - i <= 15) {
    let v: u64 = 0;
    let j = i;
    for (; j < n; j++) {
      const d = <u32>load<u8>(ptr + j) - 0x30;
      if (d >= 10) break;
      v = v * 10 + <u64>d;
    }
    if (j == n) {
      canonical = !(negative && v == 0);
      const f = <f64>v;
      return negative ? -f : f;
    }
  }
  let mantissa: u64 = 0;
  let digits = 0; // significant digits (leading zeros excluded)
  let fracDigits = 0;
  let leadingFracZeros = 0;
  let lastFracDigit = -1;
  let intIsZero = false;
  let inFrac = false;
  let exp = 0;
  let hasExp = false;
  for (; i < n; i++) {
    const b = <i32>load<u8>(ptr + i);
    if (b == 0x2e) { inFrac = true; continue; }
    if (b == 0x65 || b == 0x45) { hasExp = true; i++; break; }
    const d = b - 0x30;
    if (!inFrac && i == (negative ? 1 : 0) && d == 0) intIsZero = true;
    if (inFrac) { fracDigits++; lastFracDigit = d; }
    if (digits == 0 && d == 0) { if (inFrac) leadingFracZeros++; continue; }
    digits++;
    if (digits <= 19) mantissa = mantissa * 10 + <u64>d;
  }
  if (hasExp) {
    let expNegative = false;
    if (i < n && (load<u8>(ptr + i) == 0x2d || load<u8>(ptr + i) == 0x2b)) {
      expNegative = load<u8>(ptr + i) == 0x2d; i++;
    }
    for (; i < n; i++) {
      exp = exp * 10 + (<i32>load<u8>(ptr + i) - 0x30); if (exp > 100000) exp = 100000;
    }
    if (expNegative) exp = -exp;
  }
  // Already in JavaScript's shortest form: no exponent, no trailing fraction zero, no -0,
  // at most 15 significant digits, and not below 1e-6 (which JavaScript prints with e-).
  canonical = !hasExp && digits <= 15 && (fracDigits == 0 || lastFracDigit != 0)
    && !(negative && digits == 0)
    && !(intIsZero && fracDigits > 0 && leadingFracZeros > 5);
  if (digits == 0) return negative ? -0.0 : 0.0;
  const e = exp - fracDigits;
  if (digits <= 19 && mantissa <= (<u64>1 << 53) && e >= -22 && e <= 22) {
    const m = <f64>mantissa;
    const v = e >= 0 ? m * POW10[e] : m / POW10[-e];
    return negative ? -v : v;
  }
  return hostParseNumber(ptr, <i32>n);
}

export function numberCanonical(): bool { return canonical; }
