/**
 * How each legacy form opens, which detection (detect-legacy.ts) and the readers both
 * recognise: the binary CPU header words, or the first line of a text heap or Java profile.
 * Kept apart from the readers so that detection loads none of them.
 */
import { integerOf } from "./legacy-numbers.ts";

interface WordFormat {
  size: 4 | 8;
  little: boolean;
}

const WORD_FORMATS: WordFormat[] = [
  { size: 4, little: true },
  { size: 4, little: false },
  { size: 8, little: true },
  { size: 8, little: false },
];

export interface CpuHeader {
  words: WordFormat;
  java: boolean;
  periodMicros: bigint;
}

export function word(view: DataView, at: number, f: WordFormat): bigint {
  return f.size === 4 ? BigInt(view.getUint32(at, f.little)) : view.getBigUint64(at, f.little);
}

/** The header, when the bytes start with one in any of the four encodings; null otherwise. */
export function cpuHeaderOf(bytes: Uint8Array): CpuHeader | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const f of WORD_FORMATS) {
    if (bytes.length < 5 * f.size) continue;
    const [n1, n2, n3, n4, n5] = [0, 1, 2, 3, 4].map((i) => word(view, i * f.size, f)) as [
      bigint,
      bigint,
      bigint,
      bigint,
      bigint,
    ];
    if (n1 === 0n && n2 === 3n && (n3 === 0n || n3 === 1n) && n4 > 0n && n5 === 0n)
      return { words: f, java: n3 === 1n, periodMicros: n4 };
  }
  return null;
}

const HEAP_HEADER =
  /heap profile: *(\d+): *(\d+) *\[ *(\d+): *(\d+) *\] *@ *(heap[_a-z0-9]*)\/?(\d*)/;
const GROWTH_HEADER =
  /heap profile: *(\d+): *(\d+) *\[ *(\d+): *(\d+) *\] @ (growthz|fragmentationz)/;

export interface HeapHeader {
  /** heapz v2 samples are rescaled by their sampling probability. */
  v2: boolean;
  /** Average sampling interval in bytes (the header's rate; half of it for the old `heap` form). */
  rate: number;
  /** The bracketed allocation totals differ from the in-use ones, so both are kept. */
  hasAlloc: boolean;
}

export function heapHeaderOf(line: string): HeapHeader | null {
  const h = HEAP_HEADER.exec(line);
  if (h) {
    const rate = h[6] ? integerOf(h[6], "heap sampling rate") : 0;
    const hasAlloc = (h[3] !== h[1] && h[3] !== "0") || (h[4] !== h[2] && h[4] !== "0");
    switch (h[5]) {
      case "heapz_v2":
      case "heap_v2":
        return { v2: true, rate, hasAlloc };
      case "heapprofile":
        return { v2: false, rate: 1, hasAlloc };
      case "heap":
        return { v2: true, rate: Math.trunc(rate / 2), hasAlloc };
      default:
        return null;
    }
  }
  return GROWTH_HEADER.test(line) ? { v2: false, rate: 1, hasAlloc: false } : null;
}

/**
 * Whether the first line is a heap profile header the heap text reader knows (never throws:
 * detection uses it).
 */
export function isHeapHeader(firstLine: string): boolean {
  try {
    return heapHeaderOf(firstLine) !== null;
  } catch {
    return true; // a heap header with an unusable rate: still this format, just malformed
  }
}

export function isJavaTextHeader(firstLine: string): boolean {
  const t = firstLine.trim();
  return t === "--- heapz 1 ---" || t === "--- contentionz 1 ---";
}
