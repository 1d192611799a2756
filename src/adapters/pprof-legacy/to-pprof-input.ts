/**
 * A legacy profile → the `PprofInput` the profile.proto path builds, so both normalize
 * through the same `pprofEvidence`. As in legacy_profile.go, one location per distinct
 * (adjusted) address, numbered in order of first use; an address with a symbol gets one
 * line in a function per distinct name, one without keeps no lines (normalize-pprof
 * names such frames by their address); the memory map gives each location its module.
 */
import type { PprofInput, PprofLabel, PprofLocation } from "../pprof/pprof-input.ts";
import type { LegacyProfile } from "./legacy-profile.ts";
import { StringTable } from "../common/string-table.ts";
import { MappingTable } from "./memory-map.ts";

export function toPprofInput(profile: LegacyProfile): PprofInput {
  // profile.proto's string table starts with "" (id 0 means "no string").
  const strings = new StringTable();
  strings.id("");
  const str = (s: string): number => strings.id(s);

  const table = new MappingTable(profile.mappings);
  const functionIds = new Map<string, number>();
  const functions: PprofInput["functions"] = [];
  const locationIds = new Map<bigint, number>();
  const locations: PprofLocation[] = [];
  const locationOf = (address: bigint): number => {
    let id = locationIds.get(address);
    if (id !== undefined) return id;
    id = locations.length + 1;
    locationIds.set(address, id);
    const symbol = profile.symbols.get(address);
    const lines: PprofLocation["lines"] = [];
    if (symbol) {
      let functionId = functionIds.get(symbol.name);
      if (functionId === undefined) {
        functionId = functions.length + 1;
        functionIds.set(symbol.name, functionId);
        functions.push({
          id: functionId,
          name: str(symbol.name),
          systemName: str(symbol.name),
          filename: str(symbol.file),
          startLine: 0,
        });
      }
      lines.push({ functionId, line: symbol.line, column: 0 });
    }
    locations.push({ id, mappingId: table.indexOf(address) + 1, address, lines });
    return id;
  };

  const types = profile.sampleTypes.length;
  const count = profile.samples.length;
  const locationStart = new Int32Array(count + 1);
  let frames = 0;
  for (const s of profile.samples) frames += s.addresses.length;
  const ids = new Float64Array(frames);
  const values = new Float64Array(count * types);
  const labels: PprofLabel[][] = [];
  let k = 0;
  profile.samples.forEach((s, i) => {
    for (const address of s.addresses) ids[k++] = locationOf(address);
    locationStart[i + 1] = k;
    for (let t = 0; t < types; t++) values[i * types + t] = s.values[t] ?? 0;
    labels.push(
      (s.numLabels ?? []).map((l) => ({ key: str(l.key), str: 0, num: l.value, numUnit: 0 })),
    );
  });

  const input: Omit<PprofInput, "strings"> = {
    sampleTypes: profile.sampleTypes.map((t) => ({ type: str(t.type), unit: str(t.unit) })),
    locationIds: ids,
    locationStart,
    values,
    labels,
    sampleCount: count,
    locations,
    functions,
    mappings: profile.mappings.map((m, i) => ({ id: i + 1, filename: str(m.file), buildId: 0 })),
    timeNanos: 0n,
    durationNanos: profile.durationNanos,
    periodType: profile.periodType
      ? { type: str(profile.periodType.type), unit: str(profile.periodType.unit) }
      : null,
    period: profile.period,
    defaultSampleType: 0,
  };
  // Last: the fields above intern their strings too.
  return { ...input, strings: [...strings.all()] };
}
