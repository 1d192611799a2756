/**
 * Writes stack tries through the sink in chunks when it takes TableBuffers: a trace with
 * millions of distinct stacks then never holds its whole `stacks` table as JS rows.
 * Returns whether it did (the adapter then lists `stacks` as streamed); otherwise the
 * caller emits the tries into its whole `stacks` table as before.
 */
import type { EvidenceSink } from "../adapter.ts";
import type { FrameRegistry } from "./frame-registry.ts";
import type { StackTrie } from "./stack-trie.ts";
import type { NsClock } from "./time-ns.ts";
import type { TrackLookup } from "./track.ts";

const STACK_ROWS_PER_CHUNK = 16384;

export async function writeStackChunks(sink: EvidenceSink, tries: readonly StackTrie[], frames: FrameRegistry, clock: NsClock, tracks: TrackLookup): Promise<boolean> {
  if (!sink.writeBuffer) return false;
  for (const trie of tries) for (const chunk of trie.emitChunks(STACK_ROWS_PER_CHUNK, frames, clock, tracks)) await sink.writeBuffer(chunk);
  return true;
}
