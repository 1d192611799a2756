/**
 * Slices to nest, and what nesting them gives, for the nesting tests (tests/unit/remote-nester,
 * tests/workers/nest-offload).
 */
import type { MeasureAccumulator } from "../src/adapters/common/measure-accumulator.ts";
import type { StackTrie } from "../src/adapters/common/stack-trie.ts";
import type { Nester } from "../src/adapters/trace-events/slice-nester.ts";
import { mulberry32 } from "../fixtures/generators/prng.ts";

export const FRAMES = 40;

/** Tracks of slices in nesting order (by start, longer first), some nested, some overlapping. */
export function randomTracks(seed: number, slices: number): [number, number, number][][] {
  const random = mulberry32(seed);
  const tracks: [number, number, number][][] = [];
  for (let t = 0; t < 5; t++) {
    const track: [number, number, number][] = [];
    for (let i = 0; i < slices; i++) {
      const start = Math.floor(random() * slices * 3);
      const dur = Math.floor(random() * 40) * (random() < 0.1 ? 0 : 1);
      // Few frames near the root, many near the leaves: deep paths share prefixes.
      track.push([Math.floor(random() * (random() < 0.5 ? 4 : FRAMES)), start, dur]);
    }
    track.sort((a, b) => a[1] - b[1] || b[2] - a[2]);
    tracks.push(track);
  }
  return tracks;
}

/** Pushes every track through `nester`; returns the depths. */
export function nestAll(nester: Nester, tracks: [number, number, number][][]): number[] {
  const depths: number[] = [];
  tracks.forEach((track, t) => {
    nester.beginTrack(t * 7);
    for (const [frame, start, dur] of track) depths.push(nester.push(frame, start, dur));
    nester.endTrack();
  });
  return depths;
}

/** What the nesting produced: the measures as plain data, and every stack row. */
export function results(measures: MeasureAccumulator, stacks: StackTrie): unknown {
  const rows = [...stacks.stackRows()].map((row) => ({ ...row, path: [...row.path] }));
  return { measures: measures.handOver(), rows };
}
