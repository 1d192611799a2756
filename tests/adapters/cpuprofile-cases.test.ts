/** Project-made cpuprofiles: recursion, time conventions, frames, limitations. */
import { describe, expect, test } from "bun:test";
import { frameId } from "../../src/domain/frame-id.ts";
import { cpuProfile, cpuProfileAdapter, extractWith, limitation } from "./adapter-harness.ts";
import { expectTableInvariants, rowsOf, type Row } from "./evidence-checks.ts";

const byFunction = (rows: Row[], frames: Row[]) => {
  const name = new Map(frames.map((f) => [f.frame_id, f.function as string]));
  return new Map(rows.map((r) => [name.get(r.frame_id)!, r]));
};

describe("recursion", async () => {
  // (root) → a → b → a → b, and (root) → a → c. Deltas are µs.
  const tree: [number, string, number][] = [
    [2, "a", 1],
    [3, "b", 2],
    [4, "a", 3],
    [5, "b", 4],
    [6, "c", 2],
  ];
  // Sample durations are the *next* delta: 10, 20, 30, then endTime − last = 10.
  const profile = cpuProfile(tree, [5, 4, 6, 5], [5, 10, 20, 30]);
  const evidence = await extractWith(cpuProfileAdapter, profile);
  const frames = rowsOf(evidence.tables.frames);
  const cpu = byFunction(rowsOf(evidence.tables.frame_measurements), frames);

  test("a frame on the stack twice counts once per sample in inclusive values", () => {
    expectTableInvariants(evidence);
    expect(cpu.get("a")).toMatchObject({
      self_samples: 1,
      self_value: 20_000,
      inclusive_samples: 4,
      inclusive_value: 70_000,
    });
    expect(cpu.get("b")).toMatchObject({
      self_samples: 2,
      self_value: 20_000,
      inclusive_samples: 3,
      inclusive_value: 40_000,
    });
    expect(cpu.get("c")).toMatchObject({
      self_samples: 1,
      self_value: 30_000,
      inclusive_samples: 1,
      inclusive_value: 30_000,
    });
    expect(cpu.has("(root)")).toBe(false);
  });

  test("call edges count a sample once even when the edge repeats on its stack", () => {
    const name = new Map(frames.map((f) => [f.frame_id, f.function]));
    const edges = new Map(
      rowsOf(evidence.tables.call_edges).map((e) => [
        `${name.get(e.parent_frame_id)}>${name.get(e.child_frame_id)}`,
        e,
      ]),
    );
    expect([...edges.keys()].sort()).toEqual(["a>b", "a>c", "b>a"]);
    expect(edges.get("a>b")).toMatchObject({
      sample_count: 3,
      duration_ns: 40_000,
      metric: "cpu_time",
    });
    expect(edges.get("b>a")).toMatchObject({ sample_count: 3, duration_ns: 40_000 });
    expect(edges.get("a>c")).toMatchObject({ sample_count: 1, duration_ns: 30_000 });
  });

  test(
    "stacks: one per distinct leaf path, root excluded, with the first sample's " + "absolute time",
    () => {
      const name = new Map(frames.map((f) => [f.frame_id, f.function]));
      const stacks = new Map(
        rowsOf(evidence.tables.stacks).map((s) => [
          (s.frame_ids as string[]).map((id) => name.get(id)).join(";"),
          s,
        ]),
      );
      expect([...stacks.keys()].sort()).toEqual(["a;b;a", "a;b;a;b", "a;c"]);
      // startTime 1000 µs; samples at 1005, 1015, 1035, 1065 µs.
      expect(stacks.get("a;b;a;b")).toMatchObject({
        sample_count: 2,
        duration_ns: 20_000,
        first_ts_ns: 1_005_000n,
        track_id: null,
      });
      expect(stacks.get("a;c")).toMatchObject({
        sample_count: 1,
        duration_ns: 30_000,
        first_ts_ns: 1_035_000n,
      });
    },
  );
});

describe("time conventions", () => {
  const tree: [number, string, number][] = [[2, "work", 1]];
  test("last sample lasts until endTime when endTime is usable", async () => {
    const evidence = await extractWith(
      cpuProfileAdapter,
      cpuProfile(tree, [2, 2], [100, 50], { endTime: 1_000 + 150 + 7 }),
    );
    expect(evidence.summary.total_cpu_time_ns).toBe(57_000);
    expect(limitation(evidence, "last_sample_duration_estimated")).toBeUndefined();
  });

  test("otherwise the mean of the other samples, reported", async () => {
    const evidence = await extractWith(
      cpuProfileAdapter,
      cpuProfile(tree, [2, 2, 2], [100, 40, 60], { endTime: 0 }),
    );
    expect(evidence.summary.total_cpu_time_ns).toBe(40_000 + 60_000 + 50_000);
    expect(limitation(evidence, "last_sample_duration_estimated")).toBe(1);
  });

  test("negative deltas give their sample no time and are reported", async () => {
    const evidence = await extractWith(
      cpuProfileAdapter,
      cpuProfile(tree, [2, 2, 2], [10, -5, 20], { endTime: 1_025 }),
    );
    expect(limitation(evidence, "inconsistent_time_deltas")).toBe(1);
    expect(evidence.summary.total_cpu_time_ns).toBe(0 + 20_000 + 0);
    expectTableInvariants(evidence);
  });

  test("fractional deltas become integer nanoseconds", async () => {
    const evidence = await extractWith(
      cpuProfileAdapter,
      cpuProfile(tree, [2, 2], [1.25, 2.5], { endTime: 1_000 + 3.75 + 0.001 }),
    );
    expect(evidence.summary.total_cpu_time_ns).toBe(2_500 + 1);
  });
});

describe("frames", async () => {
  const profile = {
    nodes: [
      {
        id: 1,
        callFrame: {
          functionName: "(root)",
          scriptId: "0",
          url: "",
          lineNumber: -1,
          columnNumber: -1,
        },
        children: [2, 3, 4, 5, 6],
      },
      {
        id: 2,
        callFrame: {
          functionName: "(program)",
          scriptId: "0",
          url: "",
          lineNumber: -1,
          columnNumber: -1,
        },
      },
      {
        id: 3,
        callFrame: {
          functionName: "(garbage collector)",
          scriptId: "0",
          url: "",
          lineNumber: -1,
          columnNumber: -1,
        },
      },
      {
        id: 4,
        callFrame: {
          functionName: "",
          scriptId: "7",
          url: "file:///x.js",
          lineNumber: 0,
          columnNumber: 4,
        },
      },
      {
        id: 5,
        callFrame: { functionName: "", scriptId: "0", url: "", lineNumber: 3, columnNumber: 0 },
      },
      {
        id: 6,
        callFrame: {
          functionName: "main",
          scriptId: "7",
          url: "file:///x.js",
          lineNumber: 9,
          columnNumber: 0,
        },
      },
    ],
    startTime: 0,
    endTime: 60,
    samples: [2, 3, 4, 5, 6],
    timeDeltas: [10, 10, 10, 10, 10],
  };
  const evidence = await extractWith(cpuProfileAdapter, profile);
  const frames = new Map(rowsOf(evidence.tables.frames).map((f) => [`${f.function}@${f.file}`, f]));

  test("V8 pseudo-frames are kept with language v8; (root) is not measured", () => {
    expect(frames.get("(program)@null")).toMatchObject({
      language: "v8",
      symbolization: "complete",
      line: null,
      column: null,
    });
    expect(frames.get("(garbage collector)@null")?.language).toBe("v8");
    expect(frames.get("(root)@null")?.language).toBe("v8");
    const measured = new Set(rowsOf(evidence.tables.frame_measurements).map((m) => m.frame_id));
    expect(measured.has(frames.get("(root)@null")!.frame_id)).toBe(false);
  });

  test("line and column are 1-based; anonymous frames say how much is known", () => {
    expect(frames.get("main@file:///x.js")).toMatchObject({
      language: "javascript",
      line: 10,
      column: 1,
      symbolization: "complete",
      module: null,
    });
    expect(frames.get("(anonymous)@file:///x.js")).toMatchObject({
      line: 1,
      column: 5,
      symbolization: "partial",
    });
    expect(frames.get("(anonymous)@null")).toMatchObject({
      line: 4,
      column: 1,
      symbolization: "absent",
    });
    expect(limitation(evidence, "missing_symbols")).toBe(2);
  });

  test("frame ids are the domain's stable ids", () => {
    expect(frames.get("main@file:///x.js")!.frame_id).toBe(
      frameId({
        language: "javascript",
        function: "main",
        file: "file:///x.js",
        line: 10,
        column: 1,
      }),
    );
  });
});

describe("limitations and other forms", () => {
  test("no samples: frames but no hotspots, and a limitation instead of an error", async () => {
    const evidence = await extractWith(cpuProfileAdapter, cpuProfile([[2, "idle", 1]], [], []));
    expect(limitation(evidence, "no_samples")).toBe(1);
    expect(evidence.tables.frame_measurements.rowCount).toBe(0);
    expect(evidence.tables.stacks.rowCount).toBe(0);
    expect(evidence.tables.frames.rowCount).toBe(2);
  });

  test("a profile without samples or timeDeltas fields at all", async () => {
    const evidence = await extractWith(cpuProfileAdapter, {
      nodes: [{ id: 1, callFrame: { functionName: "(root)" } }],
    });
    expect(limitation(evidence, "no_samples")).toBe(1);
  });

  test("children may be given as parent links instead", async () => {
    const evidence = await extractWith(cpuProfileAdapter, {
      nodes: [
        { id: 1, callFrame: { functionName: "(root)" } },
        { id: 2, parent: 1, callFrame: { functionName: "f", url: "u" } },
        { id: 3, parent: 2, callFrame: { functionName: "g", url: "u" } },
      ],
      startTime: 0,
      endTime: 10,
      samples: [3],
      timeDeltas: [0],
    });
    expect(evidence.tables.call_edges.rowCount).toBe(1);
    expect(evidence.summary.total_cpu_time_ns).toBe(10_000);
  });

  test("legacy head form is converted and reported", async () => {
    const legacy = {
      head: {
        functionName: "(root)",
        url: "",
        lineNumber: 0,
        hitCount: 0,
        id: 1,
        children: [
          { functionName: "work", url: "w.js", lineNumber: 3, hitCount: 2, id: 2, children: [] },
        ],
      },
      startTime: 100, // seconds, as the legacy form writes them
      endTime: 101,
      samples: [2, 2],
      timestamps: [100_000_010, 100_000_030, 100_000_070],
    };
    const evidence = await extractWith(cpuProfileAdapter, legacy);
    expect(limitation(evidence, "legacy_head_format")).toBe(1);
    expect(evidence.summary.total_cpu_time_ns).toBe(60_000);
    const stack = rowsOf(evidence.tables.stacks)[0]!;
    expect(stack.first_ts_ns).toBe(100_000_010_000n);
  });
});
