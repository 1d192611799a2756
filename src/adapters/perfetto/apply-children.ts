/**
 * What a packet's children (interned data, clock snapshots, track, process and thread
 * descriptors) change: the packet's sequence state, the trace's clock domain and its tracks.
 * Applied before the packet's own event, which may name what they define.
 */
import type { PacketChildren } from "./packet-children.ts";
import type { PerfettoTracks } from "./perfetto-tracks.ts";
import type { ClockDomain, SequenceState } from "./sequence-state.ts";
import { R } from "./trace-program.ts";

/** Where children go beyond the sequence state: the import's strings, clocks and tracks. */
export interface ChildrenTarget {
  intern(value: string): number;
  readonly domain: ClockDomain;
  readonly tracks: PerfettoTracks;
}

export function applyChildren(
  c: PacketChildren,
  state: SequenceState,
  primary: number | null,
  into: ChildrenTarget,
): void {
  for (const e of c.interned) {
    const value = e.value ?? "";
    if (e.record === R.I_NAME) state.names.set(e.iid, into.intern(value));
    else if (e.record === R.I_CATEGORY) state.categories.set(e.iid, into.intern(value));
    else if (e.record === R.I_ANNOTATION_NAME) state.annotationNames.set(e.iid, value);
    else if (e.record === R.I_STRING_VALUE) state.stringValues.set(e.iid, value);
    else if (e.record === R.I_FUNCTION) state.functions.set(e.iid, into.intern(value));
    else if (e.record === R.I_MAPPING_PATH) state.mappingPaths.set(e.iid, value);
    else if (e.record === R.PROFILE_STRING) {
      // Android Q's per-packet string table names both functions and mapping paths.
      state.functions.set(e.iid, into.intern(value));
      state.mappingPaths.set(e.iid, value);
    }
  }
  for (const f of c.frames) state.frames.set(f.iid, f);
  for (const cs of c.callstacks) {
    state.callstacks.set(cs.iid, cs.frameIds);
    state.resolvedCallstacks.delete(cs.iid);
  }
  for (const m of c.mappings)
    state.mappings.set(
      m.iid,
      m.pathIds.map((id) => state.mappingPaths.get(id) ?? "").join("/") || null,
    );
  if (c.clocks.length > 0) {
    const builtin = c.clocks.filter((k) => k.id < 64);
    into.domain.snapshot(
      builtin.map((k) => ({ id: k.id, ns: k.value })),
      primary,
    );
    const ref = builtin[0];
    for (const k of c.clocks) {
      if (k.id < 64 || !ref) continue;
      state.clocks.set(k.id, {
        base: k.value,
        refClock: ref.id,
        refNs: ref.value,
        unitNs: k.unitNs,
        incremental: k.incremental,
        last: k.value,
      });
    }
  }
  for (const t of c.tracks) into.tracks.describe(t.uuid, t);
  if (c.defaultExtraUuids.length > 0) {
    state.defaultExtraUuids = [...c.defaultExtraUuids];
    state.defaultExtraTracks = [];
  }
  if (c.defaultExtraDoubleUuids.length > 0) {
    state.defaultExtraDoubleUuids = [...c.defaultExtraDoubleUuids];
    state.defaultExtraDoubleTracks = [];
  }
  for (const p of c.processes) if (p.name !== null) into.tracks.nameProcess(p.pid, p.name);
  for (const t of c.threads) {
    const uuid = `thread:${t.pid}:${t.tid}`;
    into.tracks.describe(uuid, {
      parent: null,
      name: null,
      pid: t.pid,
      tid: t.tid,
      processName: null,
      threadName: t.name,
    });
    state.threadTrack = into.tracks.trackOf(uuid);
  }
}
