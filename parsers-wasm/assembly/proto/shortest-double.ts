/**
 * The shortest decimal digits of a double that read back as it, by Grisu3 (Florian Loitsch,
 * "Printing Floating-Point Numbers Quickly and Accurately with Integers", PLDI 2010), and its
 * text as JavaScript's `String(n)` writes it (ECMAScript Number::toString).
 *
 * Grisu3 either proves its digits are the shortest and, among the shortest, the closest to the
 * value (what `String` gives: V8 and JavaScriptCore run the same algorithm first), or says it
 * cannot (~1% of the random doubles of every exponent the test draws). Those, like NaN and the
 * infinities, are left to the caller, which has the host write them.
 * tests/adapters/otlp-proto-stream.test.ts compares the text with `String(n)` for doubles of every
 * exponent.
 */

/** The product of `multiply`: a 64-bit significand and a binary exponent, f × 2^e. */
let productF: u64 = 0;
let productE: i32 = 0;

/**
 * 10^d for d = -348, -340, …, 340: a normalized 64-bit significand (CACHED_F) and binary
 * exponent (CACHED_E), f × 2^e the nearest such number to 10^d, computed exactly with big
 * integers (the table of Grisu's reference implementation, double-conversion).
 */
const CACHED_F: StaticArray<u64> = [
  0xfa8fd5a0081c0288, 0xbaaee17fa23ebf76, 0x8b16fb203055ac76, 0xcf42894a5dce35ea,
  0x9a6bb0aa55653b2d, 0xe61acf033d1a45df, 0xab70fe17c79ac6ca, 0xff77b1fcbebcdc4f,
  0xbe5691ef416bd60c, 0x8dd01fad907ffc3c, 0xd3515c2831559a83, 0x9d71ac8fada6c9b5,
  0xea9c227723ee8bcb, 0xaecc49914078536d, 0x823c12795db6ce57, 0xc21094364dfb5637,
  0x9096ea6f3848984f, 0xd77485cb25823ac7, 0xa086cfcd97bf97f4, 0xef340a98172aace5,
  0xb23867fb2a35b28e, 0x84c8d4dfd2c63f3b, 0xc5dd44271ad3cdba, 0x936b9fcebb25c996,
  0xdbac6c247d62a584, 0xa3ab66580d5fdaf6, 0xf3e2f893dec3f126, 0xb5b5ada8aaff80b8,
  0x87625f056c7c4a8b, 0xc9bcff6034c13053, 0x964e858c91ba2655, 0xdff9772470297ebd,
  0xa6dfbd9fb8e5b88f, 0xf8a95fcf88747d94, 0xb94470938fa89bcf, 0x8a08f0f8bf0f156b,
  0xcdb02555653131b6, 0x993fe2c6d07b7fac, 0xe45c10c42a2b3b06, 0xaa242499697392d3,
  0xfd87b5f28300ca0e, 0xbce5086492111aeb, 0x8cbccc096f5088cc, 0xd1b71758e219652c,
  0x9c40000000000000, 0xe8d4a51000000000, 0xad78ebc5ac620000, 0x813f3978f8940984,
  0xc097ce7bc90715b3, 0x8f7e32ce7bea5c70, 0xd5d238a4abe98068, 0x9f4f2726179a2245,
  0xed63a231d4c4fb27, 0xb0de65388cc8ada8, 0x83c7088e1aab65db, 0xc45d1df942711d9a,
  0x924d692ca61be758, 0xda01ee641a708dea, 0xa26da3999aef774a, 0xf209787bb47d6b85,
  0xb454e4a179dd1877, 0x865b86925b9bc5c2, 0xc83553c5c8965d3d, 0x952ab45cfa97a0b3,
  0xde469fbd99a05fe3, 0xa59bc234db398c25, 0xf6c69a72a3989f5c, 0xb7dcbf5354e9bece,
  0x88fcf317f22241e2, 0xcc20ce9bd35c78a5, 0x98165af37b2153df, 0xe2a0b5dc971f303a,
  0xa8d9d1535ce3b396, 0xfb9b7cd9a4a7443c, 0xbb764c4ca7a44410, 0x8bab8eefb6409c1a,
  0xd01fef10a657842c, 0x9b10a4e5e9913129, 0xe7109bfba19c0c9d, 0xac2820d9623bf429,
  0x80444b5e7aa7cf85, 0xbf21e44003acdd2d, 0x8e679c2f5e44ff8f, 0xd433179d9c8cb841,
  0x9e19db92b4e31ba9, 0xeb96bf6ebadf77d9, 0xaf87023b9bf0ee6b,
];
const CACHED_E: StaticArray<i32> = [
  -1220, -1193, -1166, -1140, -1113, -1087, -1060, -1034, -1007, -980, -954, -927,
  -901, -874, -847, -821, -794, -768, -741, -715, -688, -661, -635, -608,
  -582, -555, -529, -502, -475, -449, -422, -396, -369, -343, -316, -289,
  -263, -236, -210, -183, -157, -130, -103, -77, -50, -24, 3, 30,
  56, 83, 109, 136, 162, 189, 216, 242, 269, 295, 322, 348,
  375, 402, 428, 455, 481, 508, 534, 561, 588, 614, 641, 667,
  694, 720, 747, 774, 800, 827, 853, 880, 907, 933, 960, 986,
  1013, 1039, 1066,
];
const FIRST_CACHED_DECIMAL: i32 = -348;
const CACHED_DECIMAL_STEP: i32 = 8;
/** The least binary exponent of the scaled value: its integer part then fits 32 bits. */
const MIN_TARGET_EXPONENT: i32 = -60;

const SMALL_POWERS: StaticArray<u32> = [
  0, 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
];

const HIDDEN_BIT: u64 = 1 << 52;
const SIGNIFICAND_MASK: u64 = HIDDEN_BIT - 1;

/** The digits (ASCII), their count and the decimal exponent: digits × 10^exponent. */
const digits = new StaticArray<u8>(24);
let digitCount: i32 = 0;
let decimalExponent: i32 = 0;

/** (af × 2^ae) × (bf × 2^be), its upper 64 bits rounded, into productF, productE. */
function multiply(af: u64, ae: i32, bf: u64, be: i32): void {
  const M32: u64 = 0xffffffff;
  const a = af >> 32;
  const b = af & M32;
  const c = bf >> 32;
  const d = bf & M32;
  const ac = a * c;
  const bc = b * c;
  const ad = a * d;
  const bd = b * d;
  let tmp = (bd >> 32) + (ad & M32) + (bc & M32);
  tmp += 1 << 31; // rounds the dropped half
  productF = ac + (ad >> 32) + (bc >> 32) + (tmp >> 32);
  productE = ae + be + 64;
}

/**
 * Grisu3's digit generation over the scaled boundaries and value (all with exponent `e`); true
 * when its digits are proven shortest and closest.
 */
function generate(lowF: u64, wF: u64, highF: u64, e: i32): bool {
  let unit: u64 = 1;
  const tooLow = lowF - unit;
  const tooHigh = highF + unit;
  let unsafeInterval = tooHigh - tooLow;
  const shift = <u64>-e;
  const one: u64 = (<u64>1) << shift;
  let integrals = <u32>(tooHigh >> shift);
  let fractionals = tooHigh & (one - 1);
  // The biggest power of ten at most `integrals` (an estimate from its bit count, then checked).
  let kappa = (((64 - <i32>shift + 1) * 1233) >> 12) + 1;
  if (integrals < unchecked(SMALL_POWERS[kappa])) kappa--;
  let divisor = unchecked(SMALL_POWERS[kappa]);
  digitCount = 0;
  while (kappa > 0) {
    const digit = integrals / divisor;
    unchecked((digits[digitCount++] = <u8>(0x30 + digit)));
    integrals %= divisor;
    kappa--;
    const rest = ((<u64>integrals) << shift) + fractionals;
    if (rest < unsafeInterval) {
      decimalExponent = kappa;
      return weed(tooHigh - wF, unsafeInterval, rest, (<u64>divisor) << shift, unit);
    }
    divisor /= 10;
  }
  for (;;) {
    fractionals *= 10;
    unit *= 10;
    unsafeInterval *= 10;
    unchecked((digits[digitCount++] = <u8>(0x30 + <u32>(fractionals >> shift))));
    fractionals &= one - 1;
    kappa--;
    if (fractionals < unsafeInterval) break;
    // Never reached for doubles (17 digits always suffice); a bound on the buffer all the same.
    if (digitCount >= 20) return false;
  }
  decimalExponent = kappa;
  return weed((tooHigh - wF) * unit, unsafeInterval, fractionals, one, unit);
}

/** Grisu3's RoundWeed: moves the last digit toward w; false where that cannot be proven right. */
function weed(distanceTooHighW: u64, unsafeInterval: u64, rest: u64, tenKappa: u64, unit: u64): bool {
  const small = distanceTooHighW - unit;
  const big = distanceTooHighW + unit;
  while (
    rest < small &&
    unsafeInterval - rest >= tenKappa &&
    (rest + tenKappa < small || small - rest >= rest + tenKappa - small)
  ) {
    unchecked(digits[digitCount - 1]--);
    rest += tenKappa;
  }
  if (
    rest < big &&
    unsafeInterval - rest >= tenKappa &&
    (rest + tenKappa < big || big - rest > rest + tenKappa - big)
  )
    return false;
  return 2 * unit <= rest && rest <= unsafeInterval - 4 * unit;
}

/** The shortest digits of a finite, positive `value` (digits, digitCount, decimalExponent). */
function shortest(value: f64): bool {
  const bits = reinterpret<u64>(value);
  const biased = <i32>((bits >> 52) & 0x7ff);
  let f = bits & SIGNIFICAND_MASK;
  let e: i32;
  if (biased == 0) e = 1 - 1075;
  else {
    f += HIDDEN_BIT;
    e = biased - 1075;
  }
  // The boundaries halfway to the neighbouring doubles; below a power of two the lower
  // neighbour is closer.
  const plusShift = <i32>clz<u64>((f << 1) + 1);
  const plusF = ((f << 1) + 1) << (<u64>plusShift);
  const plusE = e - 1 - plusShift;
  let minusF: u64;
  let minusE: i32;
  if (f == HIDDEN_BIT && biased > 1) {
    minusF = (f << 2) - 1;
    minusE = e - 2;
  } else {
    minusF = (f << 1) - 1;
    minusE = e - 1;
  }
  minusF <<= <u64>(minusE - plusE);
  // The value itself, normalized.
  const wShift = <i32>clz<u64>(f);
  const normF = f << (<u64>wShift);
  const normE = e - wShift;
  // A cached power 10^-k that brings the product's exponent into [-60, -32].
  const minExponent = MIN_TARGET_EXPONENT - (normE + 64);
  const k = <i32>Math.ceil(<f64>(minExponent + 63) * 0.30102999566398114);
  const index = (-FIRST_CACHED_DECIMAL + k - 1) / CACHED_DECIMAL_STEP + 1;
  const cf = unchecked(CACHED_F[index]);
  const ce = unchecked(CACHED_E[index]);
  const mk = FIRST_CACHED_DECIMAL + index * CACHED_DECIMAL_STEP;
  multiply(normF, normE, cf, ce);
  const scaledW = productF;
  const scaledE = productE;
  multiply(minusF, plusE, cf, ce);
  const scaledMinus = productF;
  multiply(plusF, plusE, cf, ce);
  if (!generate(scaledMinus, scaledW, productF, scaledE)) return false;
  // digits × 10^kappa is the scaled value, which is the value × 10^mk.
  decimalExponent -= mk;
  return true;
}

/** Bytes `writeShortestDouble` needs at most: "-", 17 digits, "." and "e-324" with room to spare. */
export const SHORTEST_DOUBLE_BYTES: usize = 32;

/**
 * Writes `value` at `at` as `String(value)` does and returns its length; -1, with nothing
 * written, for NaN, the infinities and the doubles whose digits Grisu3 cannot prove.
 * SHORTEST_DOUBLE_BYTES must be free at `at`.
 */
export function writeShortestDouble(value: f64, at: usize): i32 {
  if (value == 0) {
    // -0 too: String(-0) is "0".
    store<u8>(at, 0x30);
    return 1;
  }
  if (!isFinite(value)) return -1;
  const negative = value < 0;
  if (!shortest(negative ? -value : value)) return -1;
  let p = at;
  if (negative) store<u8>(p++, 0x2d);
  const k = digitCount;
  // Where the decimal point goes, counted from the first digit (ECMAScript's n).
  const n = decimalExponent + k;
  if (k <= n && n <= 21) {
    for (let i = 0; i < k; i++) store<u8>(p++, unchecked(digits[i]));
    for (let i = k; i < n; i++) store<u8>(p++, 0x30);
  } else if (0 < n && n <= 21) {
    for (let i = 0; i < n; i++) store<u8>(p++, unchecked(digits[i]));
    store<u8>(p++, 0x2e);
    for (let i = n; i < k; i++) store<u8>(p++, unchecked(digits[i]));
  } else if (-6 < n && n <= 0) {
    store<u8>(p++, 0x30);
    store<u8>(p++, 0x2e);
    for (let i = n; i < 0; i++) store<u8>(p++, 0x30);
    for (let i = 0; i < k; i++) store<u8>(p++, unchecked(digits[i]));
  } else {
    store<u8>(p++, unchecked(digits[0]));
    if (k > 1) {
      store<u8>(p++, 0x2e);
      for (let i = 1; i < k; i++) store<u8>(p++, unchecked(digits[i]));
    }
    store<u8>(p++, 0x65);
    let exponent = n - 1;
    store<u8>(p++, exponent < 0 ? 0x2d : 0x2b);
    if (exponent < 0) exponent = -exponent;
    if (exponent >= 100) store<u8>(p++, <u8>(0x30 + exponent / 100));
    if (exponent >= 10) store<u8>(p++, <u8>(0x30 + ((exponent / 10) % 10)));
    store<u8>(p++, <u8>(0x30 + (exponent % 10)));
  }
  return <i32>(p - at);
}
