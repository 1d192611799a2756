/**
 * Embedded V8 profiles are assembled chunk by chunk (v8-sample-tree/embedded-profiles.ts): the
 * worker's checkpoint is called while a profile of many chunks is assembled and after each
 * profile, each chunk is let go once copied, and the result does not depend on either.
 */
import { describe, expect, test } from "bun:test";
import { FrameRegistry } from "../../src/adapters/common/frame-registry.ts";
import { MeasureAccumulator } from "../../src/adapters/common/measure-accumulator.ts";
import { StackTrie } from "../../src/adapters/common/stack-trie.ts";
import { NsClock } from "../../src/adapters/common/time-ns.ts";
import { EmbeddedProfiles } from "../../src/adapters/v8-sample-tree/embedded-profiles.ts";

/** A Profile and `chunks` ProfileChunks (given out of order), 3 samples each, on two nodes. */
function observed(chunks: number): EmbeddedProfiles {
  const profiles = new EmbeddedProfiles();
  profiles.observe("Profile", "1/0x1", { startTime: 0 }, 0, 0);
  for (let c = chunks - 1; c >= 0; c--) {
    const nodes =
      c === 0
        ? [
            { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 } },
            { id: 2, parent: 1, callFrame: { functionName: "work", url: "a.js", lineNumber: 3 } },
          ]
        : [];
    profiles.observe(
      "ProfileChunk",
      "1/0x1",
      { cpuProfile: { nodes, samples: [2, 2, 1] }, timeDeltas: [10, 10 + c, 10] },
      1,
      10 + c,
    );
  }
  return profiles;
}

function normalized(chunks: number, checkpoint?: () => void) {
  const frames = new FrameRegistry();
  const cpu = new MeasureAccumulator("cpu_time");
  const stacks = new StackTrie("cpu_time");
  const stats = observed(chunks).normalize(
    { frames, cpu, stacks, clock: new NsClock(0) },
    checkpoint,
  );
  return { stats, frames: frames.size };
}

describe("embedded profile assembly", () => {
  test("checkpoints come every 64 chunks and after each profile; the result is unchanged", () => {
    let checkpoints = 0;
    const counted = normalized(200, () => checkpoints++);
    // 200 chunks: three full groups of 64, then one after the profile.
    expect(checkpoints).toBe(4);
    expect(counted).toEqual(normalized(200));
    expect(counted.stats).toMatchObject({ profiles: 1, samples: 600, attributedSamples: 400 });
  });

  test("the chunks are let go as they are copied", () => {
    const profiles = observed(10);
    const pending = (profiles as unknown as { profiles: { chunks: unknown[] }[] }).profiles;
    expect(pending[0]!.chunks).toHaveLength(10);
    profiles.normalize({
      frames: new FrameRegistry(),
      cpu: new MeasureAccumulator("cpu_time"),
      stacks: new StackTrie("cpu_time"),
      clock: new NsClock(0),
    });
    expect(pending[0]!.chunks).toHaveLength(0);
  });
});
