/**
 * coverage.py 4.x data files: a fixed banner, then one JSON object with `lines` (path →
 * line numbers) or `arcs` (path → [from, to] pairs), and `file_tracers`. No contexts.
 */
import { expectationFailed, isPlainObject, parseFailed, parseJsonPayload } from "../json-guard.ts";
import { LEGACY_BANNER } from "./description.ts";
import type { MeasuredFile } from "./measured-file.ts";

export function readLegacyJson(
  bytes: Uint8Array,
  maxDepth: number,
  label: string,
): { files: MeasuredFile[]; hasArcs: boolean } {
  const banner = new TextEncoder().encode(LEGACY_BANNER);
  if (bytes.length < banner.length || banner.some((b, i) => bytes[i] !== b))
    throw parseFailed(
      label,
      "the file is neither a SQLite database nor a coverage.py JSON data file",
    );
  const { value } = parseJsonPayload(bytes.subarray(banner.length), maxDepth, label);
  if (!isPlainObject(value)) throw expectationFailed(label, "the data", "an object", value);
  const files: MeasuredFile[] = [];
  const lines = value.lines ?? {};
  const arcs = value.arcs ?? {};
  if (!isPlainObject(lines)) throw expectationFailed(label, "lines", "an object", lines);
  if (!isPlainObject(arcs)) throw expectationFailed(label, "arcs", "an object", arcs);
  for (const [path, list] of Object.entries(lines)) {
    if (!Array.isArray(list)) throw expectationFailed(label, `lines of ${path}`, "an array", list);
    files.push({ path, context: null, lines: list as number[], sorted: false, arcs: [] });
  }
  for (const [path, list] of Object.entries(arcs)) {
    if (!Array.isArray(list)) throw expectationFailed(label, `arcs of ${path}`, "an array", list);
    const pairs = list.map((pair) => {
      if (!Array.isArray(pair) || pair.length !== 2)
        throw expectationFailed(label, `an arc of ${path}`, "a [from, to] pair", pair);
      return pair as [number, number];
    });
    const existing = files.find((f) => f.path === path);
    if (existing) existing.arcs.push(...pairs);
    else files.push({ path, context: null, lines: [], sorted: false, arcs: pairs });
  }
  return { files, hasArcs: Object.keys(arcs).length > 0 };
}
