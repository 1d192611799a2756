/**
 * pprof's profile.proto, encoded with protobufjs from the same schema the pprof importer
 * decodes with: one function and location per frame, samples leaf first (pprof's order)
 * with two values, the sample count and the metric's value (one when the metric is itself
 * `samples`), so `go tool pprof` reads it with the metric as the default sample type.
 * gzip-compressed, as pprof writes it.
 */
import { gzipSync } from "node:zlib";
import type { ProfileStacks } from "../../analysis/profile-stacks.ts";
import { Profile } from "../../adapters/pprof/pprof-schema.ts";
import { exportName, unitName } from "./export-names.ts";

const PPROF_TYPE: Record<string, string> = {
  cpu_time: "cpu",
  wall_time: "wall",
  samples: "samples",
  alloc_space: "alloc_space",
  alloc_objects: "alloc_objects",
  inuse_space: "inuse_space",
  inuse_objects: "inuse_objects",
  contentions: "contentions",
  delay: "delay",
};

export function toPprof(view: ProfileStacks): Uint8Array {
  const strings = [""];
  const stringIndex = new Map<string, number>([["", 0]]);
  const str = (s: string) => {
    let i = stringIndex.get(s);
    if (i === undefined) {
      stringIndex.set(s, (i = strings.length));
      strings.push(s);
    }
    return i;
  };
  const functions: object[] = [];
  const locations: object[] = [];
  const locationOf = new Map<string, number>();
  const location = (id: string) => {
    let loc = locationOf.get(id);
    if (loc === undefined) {
      const f = view.frames.get(id);
      loc = locations.length + 1;
      functions.push({
        id: loc,
        name: str(exportName(f, id)),
        system_name: str(exportName(f, id)),
        filename: str(f?.file ?? f?.module ?? ""),
        start_line: 0,
      });
      locations.push({
        id: loc,
        line: [{ function_id: loc, line: f?.line ?? 0, column: f?.column ?? 0 }],
      });
      locationOf.set(id, loc);
    }
    return loc;
  };
  const metric = view.metric ?? "samples";
  // The sample count rides along as pprof's usual first type, except when the metric is
  // itself "samples": two types of one name would make readers pick the wrong one.
  const withCount = metric !== "samples";
  const samples = view.stacks
    .filter((s) => s.value > 0 || s.samples > 0)
    .map((s) => ({
      location_id: [...s.frameIds].reverse().map(location),
      value: withCount ? [s.samples, Math.round(s.value)] : [Math.round(s.value)],
    }));
  const valueType = {
    type: str(PPROF_TYPE[metric] ?? metric),
    unit: str(unitName(view.unit) === "none" ? "count" : unitName(view.unit)),
  };
  const message = Profile.fromObject({
    sample_type: withCount
      ? [{ type: str("samples"), unit: str("count") }, valueType]
      : [valueType],
    sample: samples,
    location: locations,
    function: functions,
    string_table: strings,
    default_sample_type: str(PPROF_TYPE[metric] ?? metric),
  });
  return gzipSync(Profile.encode(message).finish());
}
