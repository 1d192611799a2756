/**
 * gperftools text heap profiles, after legacy_profile.go parseHeap / parseHeapHeader /
 * parseHeapSample / scaleHeapSample:
 *
 *   heap profile: <inuse objs>: <inuse bytes> [<alloc objs>: <alloc bytes>] @ heapz_v2/<rate>
 *   <inuse objs>: <inuse bytes> [<alloc objs>: <alloc bytes>] @ 0x<leaf> 0x<caller> …
 *   --- Memory map: ---
 *
 * growthz and fragmentationz profiles share the sample lines (period 1, no scaling).
 */
import { parseFailed } from "../json-guard.ts";
import { type HeapHeader, heapHeaderOf } from "./legacy-headers.ts";
import { addressesAfterAt, callSites, integerOf, safe } from "./legacy-numbers.ts";
import { addSample, emptyProfile, LEGACY_FORMAT, type LegacyProfile } from "./legacy-profile.ts";
import { parseMemoryMap } from "./memory-map.ts";
import { isMemoryMapHeader, isSpaceOrComment, memoryMapText, TextLines } from "./text-lines.ts";

/**
 * Anchored, with every repetition followed by a character it cannot match: linear on hostile lines.
 */
const SAMPLE = /^(-?\d+): *(-?\d+) *\[ *(\d+): *(\d+) *\] @(.*)$/;

/**
 * heapz v2 samples an allocation of S bytes with probability 1 - exp(-S/R), R the mean
 * sampling interval, so a recorded (count, size) estimates count / p allocations of
 * size / p bytes, p taken at the average block size (legacy_profile.go scaleHeapSample,
 * including Go's truncation toward zero when converting back to int64). A rate of 1
 * means every allocation was recorded; below that the rate is unknown and nothing scales.
 */
export function scaleHeapSample(count: number, size: number, rate: number): [number, number] {
  if (count === 0 || size === 0) return [0, 0];
  if (rate <= 1) return [count, size];
  const scale = 1 / (1 - Math.exp(-(size / count) / rate));
  return [Math.trunc(count * scale), Math.trunc(size * scale)];
}

/**
 * One (count, bytes) column pair, rescaled; `blockSize` is the average size before scaling (Go's
 * integer division).
 */
function pairOf(
  countText: string,
  sizeText: string,
  what: string,
  header: HeapHeader,
): { values: [number, number]; blockSize: number | null } {
  const count = integerOf(countText, `${what} count`);
  const size = integerOf(sizeText, `${what} bytes`);
  if (count === 0 && size !== 0)
    throw parseFailed(LEGACY_FORMAT, `${what} count is 0 but its bytes are ${size}`);
  if (count === 0) return { values: [0, 0], blockSize: null };
  const blockSize = Math.trunc(size / count);
  if (!header.v2) return { values: [count, size], blockSize };
  const [c, s] = scaleHeapSample(count, size, header.rate);
  return { values: [safe(c, `${what} count`), safe(s, `${what} bytes`)], blockSize };
}

export function parseHeapText(text: string, maxSamples: number): LegacyProfile | null {
  const lines = new TextLines(text);
  const header = heapHeaderOf(lines.next() ?? "");
  if (!header) return null;
  // legacy_profile.go names the types objects/space when there are no separate allocation
  // totals; flameox has no metric for those names, and the columns are the in-use ones.
  const profile = header.hasAlloc
    ? emptyProfile("heap", [
        ["alloc_objects", "count"],
        ["alloc_space", "bytes"],
        ["inuse_objects", "count"],
        ["inuse_space", "bytes"],
      ])
    : emptyProfile("heap", [
        ["inuse_objects", "count"],
        ["inuse_space", "bytes"],
      ]);
  if (!header.hasAlloc) {
    profile.notes.push({
      code: "heap_types_renamed",
      message:
        "The heap profile has no separate allocation totals; its objects/space columns " +
        "(pprof's names) were imported as inuse_objects/inuse_space",
    });
  }
  profile.periodType = { type: "space", unit: "bytes" };
  profile.period = header.rate;

  let line = lines.next();
  for (; line !== null; line = lines.next()) {
    if (isSpaceOrComment(line)) continue;
    const trimmed = line.trim();
    if (isMemoryMapHeader(trimmed)) break;
    const m = SAMPLE.exec(trimmed);
    if (!m) throw parseFailed(LEGACY_FORMAT, `not a heap sample line: ${trimmed.slice(0, 80)}`);
    const alloc = header.hasAlloc ? pairOf(m[3]!, m[4]!, "allocation", header) : null;
    const inuse = pairOf(m[1]!, m[2]!, "in-use", header);
    const values = alloc ? [...alloc.values, ...inuse.values] : inuse.values;
    // Go keeps the block size of the last non-empty pair (in-use, else allocation).
    const blockSize = inuse.blockSize ?? alloc?.blockSize ?? 0;
    addSample(
      profile,
      {
        addresses: callSites(addressesAfterAt(m[5]!), "all_return_addresses"),
        values,
        numLabels: [{ key: "bytes", value: blockSize }],
      },
      maxSamples,
    );
  }
  profile.mappings = parseMemoryMap(memoryMapText(line, lines));
  return profile;
}
