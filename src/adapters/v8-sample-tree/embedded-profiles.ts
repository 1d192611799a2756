/**
 * V8 CPU profiles embedded in Chrome traces, whichever encoding carried them (JSON trace
 * events, or Perfetto TrackEvents whose debug annotation holds the same JSON). Chrome
 * writes a `Profile` event (start time, on the sampled thread) and `ProfileChunk` events
 * with the same pid and id (node additions, samples, timeDeltas; written from the
 * profiler thread, and not necessarily after their Profile in the file); older
 * recordings carry one `CpuProfile` event with the whole profile. Chunks are assembled
 * in timestamp order, and each profile is normalized by the same code as `.cpuprofile`
 * files, attributed to the track of the thread that was sampled.
 *
 * A trace is a collection of independent recordings, so a broken profile does not fail
 * the import: it is skipped (or its unresolvable samples dropped) and reported.
 */
import { isFlameoxError } from "../../domain/errors.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import {
  normalizeSampledProfile,
  type SampledProfileInput,
  type SampledProfileTargets,
} from "./normalize-sampled-profile.ts";

/** The event names that carry embedded V8 profiles. */
export const EMBEDDED_PROFILE_EVENTS: ReadonlySet<string> = new Set([
  "Profile",
  "ProfileChunk",
  "CpuProfile",
]);

const PROFILE_FORMAT = "CPU profile in trace";

/**
 * A chunk's `data` kept as the JSON text it was read from, parsed again when the profile is
 * assembled. Perfetto traces carry Chrome's chunks as JSON text (a legacy_json_value): held
 * parsed until the scan ends, the corpus's Chromium startup trace repeated to 2 GB kept ~94 MB of
 * objects for ~50 MB of text, at the worker's peak.
 */
export class ChunkJson {
  /** `samples`: the chunk's sample count (counted where the text was first parsed). */
  constructor(
    readonly text: string,
    readonly samples: number,
  ) {}

  parse(): Record<string, unknown> | null {
    const value: unknown = JSON.parse(this.text);
    return isPlainObject(value) ? value : null;
  }
}

interface ProfileChunk {
  tsUs: number;
  data: Record<string, unknown> | ChunkJson;
}

interface PendingProfile {
  /** -1 until the Profile (or CpuProfile) event is seen. */
  track: number;
  startTimeUs: number;
  endTimeUs: number | null;
  chunks: ProfileChunk[];
}

export interface EmbeddedProfileStats {
  profiles: number;
  samples: number;
  attributedSamples: number;
  droppedSamples: number;
  rootSamples: number;
  brokenLinks: number;
  clampedDeltas: number;
  missingDeltas: number;
  totalNs: number;
  orphanChunks: number;
  /** Frames the profiles added without a function name (anonymous functions). */
  unsymbolizedFrames: number;
  skipped: string[];
}

export class EmbeddedProfiles {
  private readonly byKey = new Map<string, PendingProfile>();
  private readonly profiles: PendingProfile[] = [];
  private samples = 0;

  /**
   * `profileClockUs` maps the times inside a profile (startTime, endTime: µs of the
   * clock the profiler read) to the µs of the events' timeline; the identity in JSON traces.
   */
  constructor(private readonly profileClockUs: (us: number) => number = (us) => us) {}

  /** Samples seen so far (checked against maxEvents before any work is done on them). */
  get sampleCount(): number {
    return this.samples;
  }

  /**
   * One Profile, ProfileChunk or CpuProfile event. `key` joins a Profile to its chunks
   * (Chrome: the process and the event id); `data` is the event's `args.data`, a chunk's
   * possibly still as its text.
   */
  observe(
    name: string,
    key: string,
    held: Record<string, unknown> | ChunkJson | null,
    track: number,
    tsUs: number,
  ): void {
    if (name === "ProfileChunk" && held instanceof ChunkJson) {
      this.addChunk(this.pending(key, -1, Number.NaN), tsUs, held);
      return;
    }
    const data = held instanceof ChunkJson ? held.parse() : held;
    if (name === "CpuProfile") {
      if (data === null || !isPlainObject(data.cpuProfile)) return;
      const whole = data.cpuProfile;
      const profile = this.pending(
        null,
        track,
        typeof whole.startTime === "number" ? this.profileClockUs(whole.startTime) : tsUs,
      );
      if (typeof whole.endTime === "number") profile.endTimeUs = this.profileClockUs(whole.endTime);
      this.addChunk(profile, tsUs, {
        cpuProfile: whole,
        timeDeltas: whole.timeDeltas ?? data.timeDeltas,
      });
      return;
    }
    if (name !== "ProfileChunk" && name !== "Profile") return;
    const profile = this.pending(key, -1, Number.NaN);
    if (name === "Profile") {
      profile.track = track;
      profile.startTimeUs =
        data !== null && typeof data.startTime === "number"
          ? this.profileClockUs(data.startTime)
          : tsUs;
    } else if (data !== null) {
      // DevTools also writes chunks without data; those add nothing.
      this.addChunk(profile, tsUs, data);
    }
  }

  private pending(key: string | null, track: number, startTimeUs: number): PendingProfile {
    const known = key === null ? undefined : this.byKey.get(key);
    if (known !== undefined) return known;
    const profile: PendingProfile = { track, startTimeUs, endTimeUs: null, chunks: [] };
    if (key !== null) this.byKey.set(key, profile);
    this.profiles.push(profile);
    return profile;
  }

  private addChunk(
    profile: PendingProfile,
    tsUs: number,
    data: Record<string, unknown> | ChunkJson,
  ): void {
    profile.chunks.push({ tsUs, data });
    if (data instanceof ChunkJson) {
      this.samples += data.samples;
      return;
    }
    const cpuProfile = isPlainObject(data.cpuProfile) ? data.cpuProfile : null;
    if (cpuProfile !== null && Array.isArray(cpuProfile.samples))
      this.samples += cpuProfile.samples.length;
  }

  /**
   * Normalizes every profile into `targets`. `checkpoint` is called as the chunks are assembled and
   * after each profile (the worker collects there when its resident size is high): a chunk is let
   * go once its arrays are copied, so the assembly does not hold a profile twice.
   */
  normalize(
    targets: Omit<SampledProfileTargets, "track">,
    checkpoint: () => void = () => {},
  ): EmbeddedProfileStats {
    const stats: EmbeddedProfileStats = {
      profiles: 0,
      samples: 0,
      attributedSamples: 0,
      droppedSamples: 0,
      rootSamples: 0,
      brokenLinks: 0,
      clampedDeltas: 0,
      missingDeltas: 0,
      totalNs: 0,
      orphanChunks: 0,
      unsymbolizedFrames: 0,
      skipped: [],
    };
    const unsymbolizedBefore = targets.frames.countUnsymbolized();
    for (const profile of this.profiles) {
      if (profile.track < 0) {
        stats.orphanChunks += profile.chunks.length;
        continue;
      }
      try {
        const input = assemble(profile, this.profileClockUs, checkpoint);
        if (input.nodes.length === 0 && input.samples.length === 0) continue;
        const result = normalizeSampledProfile(
          input,
          { ...targets, track: profile.track },
          { format: PROFILE_FORMAT, unknownSamples: "drop" },
        );
        stats.profiles++;
        stats.samples += result.samples;
        stats.attributedSamples += result.attributedSamples;
        stats.droppedSamples += result.droppedSamples;
        stats.rootSamples += result.rootSamples;
        stats.brokenLinks += result.brokenLinks;
        stats.clampedDeltas += result.clampedDeltas;
        stats.missingDeltas += result.missingDeltas;
        stats.totalNs += result.totalNs;
      } catch (error) {
        if (!isFlameoxError(error, "ARTIFACT_PARSE_FAILED")) throw error;
        stats.skipped.push(error.message);
      }
      checkpoint();
    }
    stats.unsymbolizedFrames = targets.frames.countUnsymbolized() - unsymbolizedBefore;
    return stats;
  }
}

/**
 * Concatenates the chunks in timestamp order (stable for equal timestamps), taking them from the
 * profile: each is let go once copied, with a checkpoint every CHUNKS_PER_CHECKPOINT.
 */
function assemble(
  profile: PendingProfile,
  profileClockUs: (us: number) => number,
  checkpoint: () => void,
): SampledProfileInput {
  const chunks: (ProfileChunk | null)[] = profile.chunks.sort((a, b) => a.tsUs - b.tsUs);
  profile.chunks = [];
  const nodes: unknown[] = [];
  const samples: unknown[] = [];
  const timeDeltas: unknown[] = [];
  let endTimeUs = profile.endTimeUs;
  for (let k = 0; k < chunks.length; k++) {
    const held = chunks[k]!.data;
    chunks[k] = null;
    const data = held instanceof ChunkJson ? held.parse() : held;
    if (data === null) continue;
    const cpuProfile = isPlainObject(data.cpuProfile) ? data.cpuProfile : {};
    appendAll(nodes, cpuProfile.nodes, "cpuProfile.nodes");
    appendAll(samples, cpuProfile.samples, "cpuProfile.samples");
    appendAll(timeDeltas, data.timeDeltas, "timeDeltas");
    if (typeof data.endTime === "number") endTimeUs = profileClockUs(data.endTime);
    if (k % CHUNKS_PER_CHECKPOINT === CHUNKS_PER_CHECKPOINT - 1) checkpoint();
  }
  return {
    nodes,
    samples,
    timeDeltas: timeDeltas.length > 0 ? timeDeltas : null,
    startTimeUs: profile.startTimeUs,
    endTimeUs,
  };
}

const CHUNKS_PER_CHECKPOINT = 64;

function appendAll(target: unknown[], source: unknown, field: string): void {
  if (source === undefined || source === null) return;
  if (!Array.isArray(source)) throw expectationFailed(PROFILE_FORMAT, field, "an array", source);
  for (let i = 0; i < source.length; i++) target.push(source[i]);
}

/** What a trace import reports about its embedded profiles. */
export function embeddedProfileLimitations(stats: EmbeddedProfileStats): Limitation[] {
  const out: Limitation[] = [];
  const add = (code: string, count: number, message: string): void => {
    if (count > 0) out.push({ code, message, count });
  };
  add(
    "inconsistent_time_deltas",
    stats.clampedDeltas,
    "Negative CPU profile time deltas; the affected samples were given a duration of 0",
  );
  add("missing_time_deltas", stats.missingDeltas, "CPU profile samples without a time delta");
  add(
    "unresolved_profile_samples",
    stats.droppedSamples,
    "CPU profile samples referring to nodes missing from the trace; dropped",
  );
  add(
    "incomplete_profile_nodes",
    stats.brokenLinks,
    "CPU profile nodes linked to nodes missing from the trace; their subtrees are left out",
  );
  add("root_samples", stats.rootSamples, "CPU profile samples on the (root) node; not attributed");
  add(
    "orphan_profile_chunks",
    stats.orphanChunks,
    "ProfileChunk events without their Profile event; ignored",
  );
  add(
    "missing_symbols",
    stats.unsymbolizedFrames,
    "Sampled frames without a function name (anonymous)",
  );
  if (stats.skipped.length > 0) {
    out.push({
      code: "cpu_profile_skipped",
      message:
        "Embedded CPU profiles that could not be read: " + stats.skipped.slice(0, 3).join("; "),
      count: stats.skipped.length,
    });
  }
  return out;
}
