/**
 * Perfetto tracks by uuid (TrackDescriptor), plus the implicit thread tracks of legacy
 * ThreadDescriptor sequences. Descriptors may arrive after the events that use them, so
 * names and ids are resolved when rows are written: a thread track is `pid:tid` (as in
 * Chrome JSON traces), a process track `pid:-`, any other track `track:<uuid>`.
 */
import type { TrackInfo } from "../common/track.ts";

/**
 * A counter track's CounterDescriptor: values scale by `multiplier`; incremental ones are deltas;
 * `threadTime`: the thread's CPU clock (COUNTER_THREAD_TIME_NS).
 */
export interface CounterSpec {
  multiplier: number;
  incremental: boolean;
  threadTime: boolean;
}

interface Descriptor {
  parent: string | null;
  name: string | null;
  pid: number | null;
  tid: number | null;
  processName: string | null;
  processNameIsCommandLine?: boolean;
  threadName: string | null;
  counter?: CounterSpec | null;
}

export class PerfettoTracks {
  private readonly index = new Map<string, number>();
  readonly uuids: string[] = [];
  private readonly descriptors = new Map<string, Descriptor>();
  /**
   * Per track, its descriptor as known so far: counter readings ask for it several times an event
   * (a real Chrome trace has a thread_time reading on every slice begin and end), and a lookup by
   * uuid string cost ~4% of its import.
   */
  private readonly byTrack: (Descriptor | undefined)[] = [];
  private readonly processNames = new Map<number, string>();
  pids: (string | null)[] = [];
  tids: (string | null)[] = [];
  private infos: TrackInfo[] = [];

  get size(): number {
    return this.uuids.length;
  }

  trackOf(uuid: string): number {
    let t = this.index.get(uuid);
    if (t === undefined) {
      t = this.uuids.length;
      this.index.set(uuid, t);
      this.uuids.push(uuid);
      this.byTrack.push(this.descriptors.get(uuid));
    }
    return t;
  }

  describe(uuid: string, d: Descriptor): void {
    const known = this.descriptors.get(uuid);
    // Later descriptors of the same track refine it (names can change); keep known fields.
    const merged = known
      ? {
          ...known,
          ...Object.fromEntries(Object.entries(d).filter(([, v]) => v !== null && v !== undefined)),
        }
      : d;
    this.descriptors.set(uuid, merged);
    const t = this.index.get(uuid);
    if (t !== undefined) this.byTrack[t] = merged;
    // A later descriptor renames its process (names can change), except with its command
    // line: Perfetto's SDK writes that as process_name where the producer gives none, and
    // Chrome's processes describe themselves both ways ("Renderer", then the command line).
    if (
      d.pid !== null &&
      d.processName &&
      !(d.processNameIsCommandLine && this.processNames.get(d.pid))
    )
      this.processNames.set(d.pid, d.processName);
  }

  /** Track `t`'s descriptor as known so far (descriptors normally precede their events). */
  descriptorOf(t: number): Readonly<Descriptor> | undefined {
    return this.byTrack[t];
  }

  nameProcess(pid: number, name: string): void {
    this.processNames.set(pid, name);
  }

  /** Resolves every track's id and names (call once all packets are read). */
  resolve(): void {
    this.pids = [];
    this.tids = [];
    this.infos = this.uuids.map((uuid) => {
      const d = this.descriptors.get(uuid);
      const parent = d?.parent ? this.descriptors.get(d.parent) : undefined;
      const pid = d?.pid ?? parent?.pid ?? null;
      const tid = d?.tid ?? null;
      this.pids.push(pid === null ? null : String(pid));
      this.tids.push(tid === null ? null : String(tid));
      const id =
        tid !== null
          ? `${pid ?? "-"}:${tid}`
          : d?.pid !== null && d?.pid !== undefined && d.name === null
            ? `${d.pid}:-`
            : `track:${uuid}`;
      return {
        id,
        processName: pid === null ? null : this.processNames.get(pid) || null,
        threadName: d?.threadName || (tid === null ? d?.name || null : null),
      };
    });
  }

  allInfo(): TrackInfo[] {
    return this.infos;
  }
}
