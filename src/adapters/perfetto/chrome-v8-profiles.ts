/**
 * Chrome's V8 CPU profiles in Perfetto traces. Chrome writes the `Profile` and
 * `ProfileChunk` trace events of its V8 profiler as TrackEvents with the legacy sample
 * phase ('P'), the profile id in `legacy_event` and the profile as the `data` debug
 * annotation (a `legacy_json_value`, or nested dict entries). They are read here from the
 * whole annotation, so the per-event args limit (which only bounds what a row stores)
 * never cuts a profile, and handed to the same assembler as JSON traces
 * (v8-sample-tree/embedded-profiles.ts): the two encodings of one recording give the
 * same frames, samples, stacks and `cpu_time`.
 *
 * An event names its sampled thread by the sequence it is written on (Chrome sets
 * track_uuid 0, meaning "this sequence's thread", as Trace Processor reads it). Profiles
 * join their chunks by process and id; the process is known once track descriptors are
 * resolved, so events are held (as JSON traces hold them) and assembled at the end.
 * The profile's startTime/endTime are CLOCK_MONOTONIC µs (Chrome's TimeTicks) and are
 * converted to the trace's clock like any other monotonic timestamp.
 */
import { isPlainObject, tooLarge } from "../json-guard.ts";
import {
  ChunkJson,
  EmbeddedProfiles,
  EMBEDDED_PROFILE_EVENTS,
  type EmbeddedProfileStats,
} from "../v8-sample-tree/embedded-profiles.ts";
import type { SampledProfileTargets } from "../v8-sample-tree/normalize-sampled-profile.ts";
import { annotation, legacyJsonText, PERFETTO_FORMAT } from "./debug-annotations.ts";
import type { SequenceState, ClockDomain } from "./sequence-state.ts";

/** Chrome's TimeTicks clock on Linux, Android and ChromeOS. */
const BUILTIN_CLOCK_MONOTONIC = 3;

interface HeldEvent {
  name: string;
  id: string;
  track: number;
  tsUs: number;
  data: Record<string, unknown> | ChunkJson | null;
}

export class ChromeV8Profiles {
  private readonly held: HeldEvent[] = [];
  /** Samples held so far, checked against the event limit as they arrive. */
  samples = 0;

  /**
   * Per interned name id: whether events of that name carry a profile (names repeat; the lookup is
   * per event).
   */
  private readonly byNameId = new Map<number, boolean>();

  constructor(
    private readonly domain: ClockDomain,
    private readonly maxSamples: number,
    private readonly nameOf: (nameId: number) => string,
  ) {}

  carries(nameId: number): boolean {
    if (nameId < 0) return false;
    let known = this.byNameId.get(nameId);
    if (known === undefined) {
      known = EMBEDDED_PROFILE_EVENTS.has(this.nameOf(nameId));
      this.byNameId.set(nameId, known);
    }
    return known;
  }

  /**
   * One Profile/ProfileChunk/CpuProfile TrackEvent: its annotations, sampled-thread track, time and
   * id.
   */
  event(
    name: string,
    annotations: readonly Uint8Array[],
    state: SequenceState,
    track: number,
    ns: number,
    id: string,
  ): void {
    let data: Record<string, unknown> | null = null;
    let dataBytes: Uint8Array | null = null;
    for (const bytes of annotations) {
      const [key, value] = annotation(bytes, state);
      if (key === "data" && isPlainObject(value)) {
        data = value;
        dataBytes = bytes;
      }
    }
    const profile = data !== null && isPlainObject(data.cpuProfile) ? data.cpuProfile : null;
    const samples = profile !== null && Array.isArray(profile.samples) ? profile.samples.length : 0;
    this.samples += samples;
    if (this.samples > this.maxSamples)
      throw tooLarge(PERFETTO_FORMAT, "CPU profile samples", this.samples, this.maxSamples);
    // Chunks wait for the scan's end: those that came as JSON text wait as text.
    const text = name === "ProfileChunk" && dataBytes !== null ? legacyJsonText(dataBytes) : null;
    this.held.push({
      name,
      id,
      track,
      tsUs: ns / 1000,
      data: text !== null ? new ChunkJson(text, samples) : data,
    });
  }

  /**
   * Assembles and normalizes the profiles; `pidOf` is the process of a (resolved) track, and
   * `checkpoint` is called as they are assembled (EmbeddedProfiles.normalize).
   */
  normalize(
    targets: Omit<SampledProfileTargets, "track">,
    pidOf: (track: number) => string | null,
    checkpoint?: () => void,
  ): EmbeddedProfileStats {
    const profiles = new EmbeddedProfiles(
      (us) => this.domain.toPrimary(BUILTIN_CLOCK_MONOTONIC, us * 1000) / 1000,
    );
    for (const e of this.held.splice(0)) {
      profiles.observe(
        e.name,
        `${pidOf(e.track) ?? `track ${e.track}`}/${e.id}`,
        e.data,
        e.track,
        e.tsUs,
      );
    }
    return profiles.normalize(targets, checkpoint);
  }
}
