/**
 * Seeded pseudo-random numbers for resampling and randomization. xoshiro128** (Blackman
 * & Vigna, 2018) seeded through splitmix32, so any integer seed gives a well-mixed state
 * and the same seed always gives the same stream on every platform (32-bit integer
 * arithmetic only; no Math.random).
 */
export class SeededRandom {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new RangeError(`Expected seed to be a non-negative safe integer but found ${seed}`);
    // Fold the high bits in so seeds above 2^32 still differ.
    let x = (seed >>> 0) ^ Math.floor(seed / 4294967296);
    const next = () => {
      // splitmix32 (a 32-bit variant of Steele et al.'s SplitMix).
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** Next uniform 32-bit unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  nextFloat(): number {
    const hi = this.nextUint32() >>> 5;
    const lo = this.nextUint32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, n), without modulo bias (Lemire's rejection on the low product). */
  nextInt(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > 4294967296)
      throw new RangeError(`Expected n in [1, 2^32] but found ${n}`);
    const threshold = (4294967296 - n) % n;
    for (;;) {
      const r = this.nextUint32();
      if (r >= threshold) return r % n;
    }
  }

  /** Standard normal deviate (Box–Muller; one of the pair is discarded for simplicity). */
  nextNormal(): number {
    let u = 0;
    while (u === 0) u = this.nextFloat();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.nextFloat());
  }

  /** Fisher–Yates shuffle of a copy; the recorded seed reproduces the realized order. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.nextInt(i + 1);
      const tmp = out[i]!;
      out[i] = out[j]!;
      out[j] = tmp;
    }
    return out;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
