/**
 * The memory map that follows legacy samples: /proc/self/maps lines, or the brief
 * `start-limit: file` form gperftools writes, with `name=value` lines defining `$name`
 * substitutions for later lines. It names the module of each address. The rules follow
 * legacy_profile.go (ParseProcMaps, parseMappingEntry, remapMappingIDs) and profile.go
 * (massageMappings), so addresses land in the same mapping `pprof -raw` shows.
 */
import type { LegacyMapping } from "./legacy-profile.ts";
import { TextLines } from "./text-lines.ts";

/** A maps line is short; longer lines are not entries (and never reach a regexp). */
const MAX_LINE = 4096;
const MAX_ADDRESS = (1n << 64n) - 1n;
const PROC_MAPS =
  /^([0-9a-fA-F]+)-([0-9a-fA-F]+)\s+([-rwxp]+)\s+([0-9a-fA-F]+)\s+([0-9a-fA-F]+):([0-9a-fA-F]+)\s+(\d+)\s*(\S+)?/;
const BRIEF_MAPS = /^\s*([0-9a-fA-F]+)-([0-9a-fA-F]+):\s*(\S+)(\s.*@)?([0-9a-fA-F]+)?/;
const SHARED_LIBRARY = /([.]so$|[.]so[._][0-9]+)/;
/** Where the main executable of a non-PIE x86-64 binary is loaded. */
const EXPECTED_MAIN_START = 0x400000n;

function hex(text: string): bigint | null {
  const value = BigInt("0x" + text);
  return value > MAX_ADDRESS ? null : value;
}

/** One line → a mapping, "skip" (a non-executable /proc entry), or null (not an entry). */
function mappingEntry(line: string): LegacyMapping | "skip" | null {
  const proc = PROC_MAPS.exec(line);
  if (proc) {
    if (!proc[3]!.includes("x")) return "skip";
    const [start, limit, offset] = [hex(proc[1]!), hex(proc[2]!), hex(proc[4]!)];
    return start === null || limit === null || offset === null
      ? null
      : { start, limit, offset, file: proc[8] ?? "" };
  }
  const brief = BRIEF_MAPS.exec(line);
  if (brief) {
    const [start, limit, offset] = [hex(brief[1]!), hex(brief[2]!), brief[5] ? hex(brief[5]) : 0n];
    return start === null || limit === null || offset === null
      ? null
      : { start, limit, offset, file: brief[3]! };
  }
  return null;
}

export function parseMemoryMap(text: string): LegacyMapping[] {
  const mappings: LegacyMapping[] = [];
  const substitutions: [string, string][] = [];
  const lines = new TextLines(text);
  for (let raw = lines.next(); raw !== null; raw = lines.next()) {
    let line = raw.trim();
    if (line === "" || line.length > MAX_LINE) continue;
    for (const [name, value] of substitutions) line = line.replaceAll(name, value);
    const entry = mappingEntry(line);
    if (entry === "skip") continue;
    if (entry !== null) {
      mappings.push(entry);
      continue;
    }
    // `source=/home` makes `$source` expand in later entries; other unrecognized lines are ignored.
    const eq = line.indexOf("=");
    if (eq >= 0) substitutions.push(["$" + line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return massage(mappings);
}

/** Whether m2 continues m1 (one mapping split in two): adjacent, same file, consistent offsets. */
function adjacent(m1: LegacyMapping, m2: LegacyMapping): boolean {
  if (m1.file !== "" && m2.file !== "" && m1.file !== m2.file) return false;
  if (m1.limit !== m2.start) return false;
  return m1.offset === 0n || m2.offset === 0n || m1.offset + (m1.limit - m1.start) === m2.offset;
}

/**
 * Merges split mappings and moves the guessed main executable first (profile.go massageMappings).
 */
function massage(input: LegacyMapping[]): LegacyMapping[] {
  const out: LegacyMapping[] = [];
  for (const m of input) {
    const last = out[out.length - 1];
    if (last && adjacent(last, m)) {
      last.limit = m.limit;
      if (m.file !== "") last.file = m.file;
    } else {
      out.push({ ...m });
    }
  }
  const main = out.findIndex((m) => {
    const file = m.file.replaceAll("(deleted)", "").trim();
    return file !== "" && !SHARED_LIBRARY.test(file) && !file.startsWith("[");
  });
  if (main > 0) [out[0], out[main]] = [out[main]!, out[0]!];
  // Some handlers report the main executable's region as a hugepage alias; drop it
  // (remapMappingIDs).
  if (
    out.length > 1 &&
    out[0]!.file.startsWith("/anon_hugepage") &&
    out[0]!.limit === out[1]!.start
  )
    out.shift();
  const first = out[0];
  if (first && BigInt.asUintN(64, first.start - first.offset) === EXPECTED_MAIN_START) {
    first.start = EXPECTED_MAIN_START;
    first.offset = 0n;
  }
  return out;
}

/** Assigns addresses to mappings as remapMappingIDs does; -1 means "no mapping" (Go's fake one). */
export class MappingTable {
  constructor(readonly mappings: LegacyMapping[]) {}

  indexOf(address: bigint): number {
    if (address === 0n) return -1;
    const direct = this.mappings.findIndex((m) => m.start <= address && address < m.limit);
    if (direct >= 0) return direct;
    // Legacy handlers may omit the first part of a mapping split in two: its offset says where it
    // began.
    const extended = this.mappings.findIndex(
      (m) => m.offset !== 0n && m.start - m.offset <= address && address < m.start,
    );
    if (extended >= 0) {
      const m = this.mappings[extended]!;
      m.start -= m.offset;
      m.offset = 0n;
    }
    return extended;
  }
}
