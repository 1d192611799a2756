/**
 * V8 CPU profiles embedded in Chrome traces. DevTools recordings carry a `Profile`
 * event (start time, on the sampled thread) and `ProfileChunk` events with the same pid
 * and id (node additions, samples, timeDeltas; written from the profiler thread, and not
 * necessarily after their Profile in the file); older recordings carry one `CpuProfile`
 * event with the whole profile. Chunks are assembled in timestamp order, and each
 * profile is normalized by the same code as `.cpuprofile` files, attributed to the
 * track of the thread that was sampled.
 *
 * A trace is a collection of independent recordings, so a broken profile does not fail
 * the import: it is skipped (or its unresolvable samples dropped) and reported.
 */
import { isFlameoxError } from "../../domain/errors.ts";
import { expectationFailed, isPlainObject } from "../json-guard.ts";
import { normalizeSampledProfile, type SampledProfileInput, type SampledProfileTargets } from "../v8-sample-tree/normalize-sampled-profile.ts";
import type { TraceEventObject } from "./event-scan.ts";

const PROFILE_FORMAT = "CPU profile in trace";

interface ProfileChunk {
  tsUs: number;
  data: Record<string, unknown>;
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
  skipped: string[];
}

export class EmbeddedProfiles {
  private readonly byKey = new Map<string, PendingProfile>();
  private readonly profiles: PendingProfile[] = [];
  private samples = 0;

  /** Samples seen so far (checked against maxEvents before any work is done on them). */
  get sampleCount(): number {
    return this.samples;
  }

  observe(event: TraceEventObject, track: number, tsUs: number): void {
    const name = event.name;
    if (name !== "ProfileChunk" && name !== "Profile" && name !== "CpuProfile") return;
    const data = isPlainObject(event.args) && isPlainObject(event.args.data) ? event.args.data : null;
    if (name === "CpuProfile") {
      if (data === null || !isPlainObject(data.cpuProfile)) return;
      const whole = data.cpuProfile;
      const profile = this.pending(null, track, typeof whole.startTime === "number" ? whole.startTime : tsUs);
      if (typeof whole.endTime === "number") profile.endTimeUs = whole.endTime;
      this.addChunk(profile, tsUs, { cpuProfile: whole, timeDeltas: whole.timeDeltas ?? data.timeDeltas });
      return;
    }
    const profile = this.pending(String(event.pid) + "/" + String(event.id), -1, Number.NaN);
    if (name === "Profile") {
      profile.track = track;
      profile.startTimeUs = data !== null && typeof data.startTime === "number" ? data.startTime : tsUs;
    } else if (data !== null) {
      this.addChunk(profile, tsUs, data); // DevTools also writes chunks without data: nothing to add
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

  private addChunk(profile: PendingProfile, tsUs: number, data: Record<string, unknown>): void {
    profile.chunks.push({ tsUs, data });
    const cpuProfile = isPlainObject(data.cpuProfile) ? data.cpuProfile : null;
    if (cpuProfile !== null && Array.isArray(cpuProfile.samples)) this.samples += cpuProfile.samples.length;
  }

  normalize(targets: Omit<SampledProfileTargets, "track">): EmbeddedProfileStats {
    const stats: EmbeddedProfileStats = {
      profiles: 0, samples: 0, attributedSamples: 0, droppedSamples: 0, rootSamples: 0, brokenLinks: 0,
      clampedDeltas: 0, missingDeltas: 0, totalNs: 0, orphanChunks: 0, skipped: [],
    };
    for (const profile of this.profiles) {
      if (profile.track < 0) {
        stats.orphanChunks += profile.chunks.length;
        continue;
      }
      try {
        const input = assemble(profile);
        if (input.nodes.length === 0 && input.samples.length === 0) continue;
        const result = normalizeSampledProfile(input, { ...targets, track: profile.track }, { format: PROFILE_FORMAT, unknownSamples: "drop" });
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
    }
    return stats;
  }
}

/** Concatenates the chunks in timestamp order (stable for equal timestamps). */
function assemble(profile: PendingProfile): SampledProfileInput {
  const chunks = profile.chunks.slice().sort((a, b) => a.tsUs - b.tsUs);
  const nodes: unknown[] = [];
  const samples: unknown[] = [];
  const timeDeltas: unknown[] = [];
  let endTimeUs = profile.endTimeUs;
  for (const { data } of chunks) {
    const cpuProfile = isPlainObject(data.cpuProfile) ? data.cpuProfile : {};
    appendAll(nodes, cpuProfile.nodes, "cpuProfile.nodes");
    appendAll(samples, cpuProfile.samples, "cpuProfile.samples");
    appendAll(timeDeltas, data.timeDeltas, "timeDeltas");
    if (typeof data.endTime === "number") endTimeUs = data.endTime;
  }
  return { nodes, samples, timeDeltas: timeDeltas.length > 0 ? timeDeltas : null, startTimeUs: profile.startTimeUs, endTimeUs };
}

function appendAll(target: unknown[], source: unknown, field: string): void {
  if (source === undefined || source === null) return;
  if (!Array.isArray(source)) throw expectationFailed(PROFILE_FORMAT, field, "an array", source);
  for (let i = 0; i < source.length; i++) target.push(source[i]);
}
