/**
 * Tracks of a trace: one per (pid, tid). pid/tid may be numbers or strings (Kineto
 * writes `"stream 7"`), and `1` and `"1"` name the same thread, so raw values are looked
 * up first (fast, no string building per event) and canonicalized only when new.
 * Names come from `M` metadata events, which may appear anywhere in the file, so they
 * are resolved when rows are written, not when tracks are created.
 *
 * Nestable async events (b/e/n) live on a track of their async operation instead: one per
 * category and id, within the process for `id2.local` ids and across processes for `id`
 * and `id2.global` (the Trace Event Format's scopes, as Trace Processor keys its legacy
 * async tracks). Such a track is named by its first named event.
 */
import type { TrackInfo } from "../common/track.ts";

const MISSING = "-";

/** The id of an async event (its `id`, or `id2.local` / `id2.global`), or null when it has none. */
export interface AsyncId {
  id: string;
  /** `id2.local`: scoped to the event's process. */
  local: boolean;
}

export function asyncIdOf(id: unknown, id2: unknown): AsyncId | null {
  if (typeof id2 === "object" && id2 !== null && !Array.isArray(id2)) {
    const scoped = id2 as { local?: unknown; global?: unknown };
    const local = idPart(scoped.local);
    if (local !== null) return { id: local, local: true };
    const global = idPart(scoped.global);
    if (global !== null) return { id: global, local: false };
  }
  const plain = idPart(id);
  return plain === null ? null : { id: plain, local: false };
}

function idPart(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string"
    ? value
    : typeof value === "number"
      ? String(value)
      : JSON.stringify(value);
}

/**
 * A name given to a process or track, in the order the trace gave them: a piece of a
 * trace scanned on its own records them, and the whole trace's registry replays them in
 * piece order (names are last-wins for M events, first-wins for async operations).
 */
export type TrackNaming =
  | ["process", string, string]
  | ["thread", number, string]
  | ["async", number, string];

export class TrackRegistry {
  /** When set, every naming is recorded here too (see TrackNaming). */
  namings: TrackNaming[] | null = null;
  private readonly byRawPid = new Map<unknown, Map<unknown, number>>();
  private readonly byId = new Map<string, number>();
  readonly pids: (string | null)[] = [];
  readonly tids: (string | null)[] = [];
  readonly ids: string[] = [];
  private readonly processNames = new Map<string, string>();
  private readonly threadNames = new Map<number, string>();

  get size(): number {
    return this.ids.length;
  }

  trackOf(pid: unknown, tid: unknown): number {
    let byTid = this.byRawPid.get(pid);
    if (byTid === undefined) {
      byTid = new Map();
      this.byRawPid.set(pid, byTid);
    }
    let track = byTid.get(tid);
    if (track === undefined) {
      track = this.canonicalTrack(idPart(pid), idPart(tid));
      byTid.set(tid, track);
    }
    return track;
  }

  private canonicalTrack(pid: string | null, tid: string | null): number {
    return this.trackWithId((pid ?? MISSING) + ":" + (tid ?? MISSING), pid, tid);
  }

  /**
   * The track of the async operation `async` of category `cat`; `name` names the track if it has no
   * name yet.
   */
  asyncTrackOf(pid: unknown, cat: string | null, async: AsyncId, name: string | null): number {
    const pidPart = async.local ? (idPart(pid) ?? MISSING) : null;
    const id = `${pidPart === null ? "" : pidPart + ":"}async:${cat ?? ""}:${async.id}`;
    const track = this.trackWithId(id, async.local ? idPart(pid) : null, null);
    if (name !== null && !this.threadNames.has(track)) {
      this.threadNames.set(track, name);
      this.namings?.push(["async", track, name]);
    }
    return track;
  }

  nameProcess(pid: unknown, name: string): void {
    const key = idPart(pid) ?? MISSING;
    this.processNames.set(key, name);
    this.namings?.push(["process", key, name]);
  }

  nameThread(pid: unknown, tid: unknown, name: string): void {
    const track = this.trackOf(pid, tid);
    this.threadNames.set(track, name);
    this.namings?.push(["thread", track, name]);
  }

  /**
   * The track with this canonical id, made with these pid and tid parts if new (a piece's track,
   * see TrackNaming).
   */
  trackWithId(id: string, pid: string | null, tid: string | null): number {
    let track = this.byId.get(id);
    if (track === undefined) {
      track = this.ids.length;
      this.byId.set(id, track);
      this.ids.push(id);
      this.pids.push(pid);
      this.tids.push(tid);
    }
    return track;
  }

  /** Replays a piece's naming with its tracks mapped to this registry's. */
  replay(naming: TrackNaming, trackOf: (pieceTrack: number) => number): void {
    if (naming[0] === "process") this.processNames.set(naming[1], naming[2]);
    else if (naming[0] === "thread") this.threadNames.set(trackOf(naming[1]), naming[2]);
    else if (!this.threadNames.has(trackOf(naming[1])))
      this.threadNames.set(trackOf(naming[1]), naming[2]);
  }

  /** Every track's description, once names are known (callers index it per row). */
  allInfo(): TrackInfo[] {
    return this.ids.map((_, track) => this.info(track));
  }

  info(track: number): TrackInfo {
    return {
      id: this.ids[track]!,
      processName: this.processNames.get(this.pids[track] ?? MISSING) ?? null,
      threadName: this.threadNames.get(track) ?? null,
    };
  }
}
