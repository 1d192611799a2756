/** Where a measurement was taken: a thread of a process, or nothing for single-track artifacts. */
export interface TrackInfo {
  /** `${pid}:${tid}`, or null when the artifact has a single, unnamed track. */
  id: string | null;
  processName: string | null;
  threadName: string | null;
}

export const SINGLE_TRACK: TrackInfo = { id: null, processName: null, threadName: null };

/** Resolves a track index to its (possibly late-named) description at emission time. */
export type TrackLookup = (track: number) => TrackInfo;
