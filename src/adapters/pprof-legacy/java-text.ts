/**
 * Legacy Java heapz and contentionz text profiles, after legacy_java_profile.go
 * parseJavaProfile / parseJavaHeader / parseJavaSamples:
 *
 *   --- heapz 1 ---                 (or --- contentionz 1 ---)
 *   format = java
 *   resolution = bytes              (the unit of the values)
 *   <bytes or delay> <objects or contentions> @ 0x<frame> …
 *   0x<frame> com.example.Foo.bar (Foo.java:12)
 *
 * Java columns are the other way round from C++ ones (size first). Frames are method
 * ids resolved by the symbol lines at the end, not return addresses: no adjustment.
 */
import { parseFailed } from "../json-guard.ts";
import { parseJavaSymbols } from "./java-symbols.ts";
import { addressesAfterAt, integerOf, safe } from "./legacy-numbers.ts";
import { addSample, emptyProfile, LEGACY_FORMAT, type LegacyProfile } from "./legacy-profile.ts";
import { scaleHeapSample } from "./heap-text.ts";
import { TextLines } from "./text-lines.ts";

/** The Java heap agent samples every 512 KiB on average. */
const JAVA_HEAPZ_SAMPLING_RATE = 524288;
const MAX_ATTRIBUTE_LINE = 4096;
const WORD_RUN_END = /[\w ]+$/;
const WORD_RUN_START = /^[\w ]+/;
const SAMPLE = /^(\d+) +(\d+) +@ +(.*)$/;

/** `name = value` where both sides are words and spaces (Go's attributeRx), or null. */
function attributeOf(line: string): [string, string] | null {
  const eq = line.indexOf("=");
  if (eq < 0 || line.length > MAX_ATTRIBUTE_LINE) return null;
  const key = WORD_RUN_END.exec(line.slice(0, eq))?.[0].trim();
  const value = WORD_RUN_START.exec(line.slice(eq + 1))?.[0].trim();
  return key === undefined || value === undefined ? null : [key, value];
}

export function parseJavaText(text: string, maxSamples: number): LegacyProfile | null {
  const lines = new TextLines(text);
  const first = (lines.next() ?? "").trim();
  const kind =
    first === "--- heapz 1 ---" ? "heap" : first === "--- contentionz 1 ---" ? "contention" : null;
  if (kind === null) return null;
  const profile = emptyProfile(`java-${kind}`, []);

  let line = lines.next();
  for (; line !== null; line = lines.next()) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    const attribute = attributeOf(trimmed);
    if (!attribute) break;
    const [key, value] = attribute;
    switch (`${kind}/${key}`) {
      case "heap/format":
      case "contention/format":
        if (value !== "java") return null;
        break;
      case "heap/resolution":
        profile.sampleTypes = [
          { type: "inuse_objects", unit: "count" },
          { type: "inuse_space", unit: value },
        ];
        break;
      case "contention/resolution":
        // Go gives both types the resolution's unit; flameox would then read a count of
        // contentions as a time, so the count keeps the unit it is.
        profile.sampleTypes = [
          { type: "contentions", unit: "count" },
          { type: "delay", unit: value },
        ];
        break;
      case "contention/sampling period":
        profile.periodType = { type: "contentions", unit: "count" };
        profile.period = integerOf(value, "sampling period");
        break;
      case "contention/ms since reset":
        profile.durationNanos = BigInt(integerOf(value, "ms since reset")) * 1_000_000n;
        break;
      default:
        return null;
    }
  }
  if (profile.sampleTypes.length === 0)
    throw parseFailed(
      LEGACY_FORMAT,
      `the Java ${kind} profile has no resolution attribute, so its values have no unit`,
    );

  for (; line !== null; line = lines.next()) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    const m = SAMPLE.exec(trimmed);
    if (!m) break; // the symbol section
    let objects = integerOf(m[2]!, "sample count");
    let size = integerOf(m[1]!, "sample value");
    let blockSize: number | null = null;
    if (kind === "heap") {
      if (objects === 0)
        throw parseFailed(
          LEGACY_FORMAT,
          `Java heap sample with no objects: ${trimmed.slice(0, 80)}`,
        );
      blockSize = Math.trunc(size / objects);
      [objects, size] = scaleHeapSample(objects, size, JAVA_HEAPZ_SAMPLING_RATE);
    } else if (profile.period !== 0) {
      objects *= profile.period;
      size *= profile.period;
    }
    addSample(
      profile,
      {
        addresses: addressesAfterAt(m[3]!),
        values: [safe(objects, "sample count"), safe(size, "sample value")],
        numLabels: blockSize === null ? undefined : [{ key: "bytes", value: blockSize }],
      },
      maxSamples,
    );
  }
  profile.symbols = parseJavaSymbols((line ?? "") + "\n" + lines.rest());
  return profile;
}
