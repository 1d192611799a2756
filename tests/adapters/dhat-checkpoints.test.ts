/**
 * The DHAT adapter's passes over its spooled program points (checks, then measures) write
 * no rows for as long as they run (tens of seconds for a large profile), so they must offer
 * the worker checkpoints (where it collects garbage when its resident size is high) as they
 * go: without them, a 300 MB profile's worker grew past its 512 MiB cap before the first
 * row was written.
 */
import { expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { dhatAdapter } from "../../src/adapters/dhat/adapter.ts";
import { POINTS_PER_CHECKPOINT } from "../../src/adapters/dhat/dhat-evidence.ts";
import { CountingSpillSpace } from "./spill-counting.ts";
import { chunked } from "./stream-harness.ts";

function profile(points: number): Uint8Array {
  const pps: string[] = [];
  for (let i = 0; i < points; i++)
    pps.push(`{"tb":${8 * (i + 1)},"tbk":1,"gb":8,"gbk":1,"fs":[1,${2 + (i % 3)},5]}`);
  const ftbl = [
    "[root]",
    "0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so)",
    "0x1: a (a.c:1)",
    "0x2: b (b.c:2)",
    "0x3: c (c.c:3)",
    "0x4: main (main.c:4)",
  ];
  return new TextEncoder().encode(
    `{"dhatFileVersion":2,"mode":"heap","bklt":true,` +
      `"pps":[${pps.join(",")}],"ftbl":${JSON.stringify(ftbl)}}`,
  );
}

test(
  "the passes over the points reach a checkpoint " +
    "every POINTS_PER_CHECKPOINT points, before any row",
  async () => {
    const points = 2 * POINTS_PER_CHECKPOINT + 3;
    let checkpoints = 0;
    let atFirstRow = -1;
    const space = new CountingSpillSpace();
    const evidence = await dhatAdapter.extractStream!({
      chunks: chunked(profile(points), 1 << 16),
      displayName: "t",
      limits: DEFAULT_ADAPTER_LIMITS,
      sink: {
        writeBatch: async () => {
          if (atFirstRow < 0) atFirstRow = checkpoints;
        },
      },
      spill: space,
      recordBytesInMemory: 4096,
      checkpoint: () => checkpoints++,
    });
    expect(evidence.summary.program_points).toBe(points);
    // The points were spilled and read back, and rows were written after the pass.
    expect(space.appends).toBeGreaterThan(0);
    // Each pass (checks, then measures) every POINTS_PER_CHECKPOINT points, and once at the end.
    expect(atFirstRow).toBe(2 * Math.floor((points - 1) / POINTS_PER_CHECKPOINT) + 1);
  },
);
