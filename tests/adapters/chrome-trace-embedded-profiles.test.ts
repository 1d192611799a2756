/** V8 CPU samples inside Chrome traces (DevTools recordings): same numbers as a .cpuprofile. */
import { describe, expect, test } from "bun:test";
import {
  chromeTraceAdapter,
  cpuProfile,
  cpuProfileAdapter,
  extractWith,
  limitation,
  oneChunkProfileTrace,
} from "./adapter-harness.ts";
import { expectTableInvariants, rowsOf } from "./evidence-checks.ts";

describe("embedded V8 samples", () => {
  const tree: [number, string, number][] = [
    [2, "main", 1],
    [3, "hot", 2],
    [4, "main", 3],
  ];
  const profile = cpuProfile(tree, [3, 4, 3, 2, 4], [5, 10, 20, 30, 40]);

  test(
    "Profile + ProfileChunks (out of order, profile after its chunks) match the cpuprofile " +
      "adapter",
    async () => {
      const nodes = profile.nodes.map(({ children: _children, ...node }) => ({
        ...node,
        parent: tree.find(([id]) => id === node.id)?.[2],
      }));
      const chunk = (ts: number, data: Record<string, unknown>) => ({
        ph: "P",
        name: "ProfileChunk",
        id: "0x7",
        pid: 9,
        tid: 99,
        ts,
        cat: "v8",
        args: { data },
      });
      const trace = [
        chunk(1200, {
          cpuProfile: { samples: [2, 4] },
          timeDeltas: [30, 40],
          endTime: profile.endTime,
        }),
        chunk(1100, { cpuProfile: { nodes: nodes.slice(0, 2), samples: [3] }, timeDeltas: [5] }),
        chunk(1150, {
          cpuProfile: { nodes: nodes.slice(2), samples: [4, 3] },
          timeDeltas: [10, 20],
        }),
        { ph: "M", name: "thread_name", pid: 9, tid: 1, args: { name: "CrRendererMain" } },
        {
          ph: "P",
          name: "Profile",
          id: "0x7",
          pid: 9,
          tid: 1,
          ts: 1000,
          args: { data: { startTime: profile.startTime } },
        },
      ];
      const fromTrace = await extractWith(chromeTraceAdapter, trace);
      const fromFile = await extractWith(cpuProfileAdapter, profile);
      expectTableInvariants(fromTrace);
      const cpuRows = (e: typeof fromTrace) =>
        rowsOf(e.tables.frame_measurements)
          .filter((m) => m.metric === "cpu_time")
          .map((m) => [
            m.frame_id,
            m.self_value,
            m.inclusive_value,
            m.self_samples,
            m.inclusive_samples,
          ]);
      expect(cpuRows(fromTrace)).toEqual(cpuRows(fromFile));
      const measurement = rowsOf(fromTrace.tables.frame_measurements).find(
        (m) => m.metric === "cpu_time",
      )!;
      expect(measurement).toMatchObject({ track_id: "9:1", thread_name: "CrRendererMain" });
      const edges = (e: typeof fromTrace) =>
        rowsOf(e.tables.call_edges)
          .filter((r) => r.metric === "cpu_time")
          .map((r) => JSON.stringify(r))
          .sort();
      expect(edges(fromTrace)).toEqual(edges(fromFile));
      const stacks = (e: typeof fromTrace) =>
        rowsOf(e.tables.stacks)
          .filter((r) => r.metric === "cpu_time")
          .map((r) => [r.stack_id, r.sample_count, r.duration_ns, r.first_ts_ns]);
      expect(stacks(fromTrace)).toEqual(stacks(fromFile));
      expect(fromTrace.summary).toMatchObject({ cpu_profiles: 1, cpu_samples: 5 });
    },
  );

  test("the older single CpuProfile event, and chunks whose Profile is missing", async () => {
    const trace = [
      {
        ph: "I",
        name: "CpuProfile",
        pid: 3,
        tid: 4,
        ts: 5,
        args: { data: { cpuProfile: profile } },
      },
      {
        ph: "P",
        name: "ProfileChunk",
        id: "0x1",
        pid: 3,
        tid: 4,
        ts: 6,
        args: { data: { cpuProfile: { samples: [1] }, timeDeltas: [1] } },
      },
    ];
    const evidence = await extractWith(chromeTraceAdapter, trace);
    expect(evidence.summary).toMatchObject({ cpu_profiles: 1, cpu_samples: 5 });
    expect(limitation(evidence, "orphan_profile_chunks")).toBe(1);
  });

  test("samples pointing at nodes lost from the trace are dropped and reported", async () => {
    const trace = oneChunkProfileTrace({
      cpuProfile: {
        nodes: [
          { id: 1, callFrame: { functionName: "(root)" } },
          { id: 5, parent: 4, callFrame: { functionName: "orphan" } },
        ],
        samples: [5, 6, 1],
      },
      timeDeltas: [1, 1, 1],
    });
    const evidence = await extractWith(chromeTraceAdapter, trace);
    expect(limitation(evidence, "unresolved_profile_samples")).toBe(2);
    expect(limitation(evidence, "incomplete_profile_nodes")).toBe(1);
    expect(limitation(evidence, "root_samples")).toBe(1);
  });
});
