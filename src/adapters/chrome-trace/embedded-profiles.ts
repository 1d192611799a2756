/**
 * V8 CPU profiles embedded in Chrome JSON traces: the trace event's fields → the shared
 * assembler (v8-sample-tree/embedded-profiles.ts), which Perfetto traces feed as well.
 * A Profile joins its ProfileChunks by process and event id.
 */
import { isPlainObject } from "../json-guard.ts";
import { EmbeddedProfiles as SharedEmbeddedProfiles } from "../v8-sample-tree/embedded-profiles.ts";

export type { EmbeddedProfileStats } from "../v8-sample-tree/embedded-profiles.ts";

/** The fields of a trace event that can carry a profile, as JSON.parse gives them. */
export interface ProfileEventFields {
  name?: unknown;
  pid?: unknown;
  id?: unknown;
  args?: unknown;
}

export class EmbeddedProfiles extends SharedEmbeddedProfiles {
  observeEvent(event: ProfileEventFields, track: number, tsUs: number): void {
    const name = event.name;
    if (name !== "ProfileChunk" && name !== "Profile" && name !== "CpuProfile") return;
    const data =
      isPlainObject(event.args) && isPlainObject(event.args.data) ? event.args.data : null;
    this.observe(name, String(event.pid) + "/" + String(event.id), data, track, tsUs);
  }
}
