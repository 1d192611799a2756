/** Malformed and hostile inputs fail with typed errors, never crashes or partial evidence. */
import { describe, expect, test } from "bun:test";
import { assertNestingWithin } from "../../src/adapters/json-guard.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import {
  chromeTraceAdapter,
  cpuProfileAdapter,
  expectFailure,
  extractWith,
  oneChunkProfileTrace,
  payload,
} from "./adapter-harness.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";

const deepArrays = "[".repeat(100_000) + "]".repeat(100_000);
const deepObjects = '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000);
const profileText = new TextDecoder().decode(
  loadPayload(
    corpusFiles("cpuprofile").find((f) => f.name === "local-node20.20.2-work.cpuprofile")!.path,
  ),
);
const traceText = new TextDecoder().decode(
  loadPayload(
    corpusFiles("chrome-trace").find((f) => f.name === "local-node20.20.2-trace-events.json")!.path,
  ),
);

describe("both adapters reject unusable payloads with ARTIFACT_PARSE_FAILED", () => {
  const cases: [string, string][] = [
    ["empty file", ""],
    ["only whitespace", " \n\t "],
    ["not JSON at all", "hello, profiler"],
    ["binary noise", "\u0000\u0001\u00ff\u0010"],
    ["100k nested arrays", deepArrays],
    ["100k nested objects", deepObjects],
    ["a bare string", '"traceEvents"'],
    ["a number", "42"],
    ["null", "null"],
  ];
  for (const [label, text] of cases) {
    test(`cpuprofile: ${label}`, async () =>
      void (await expectFailure(cpuProfileAdapter, text, "ARTIFACT_PARSE_FAILED")));
    test(`chrome trace: ${label}`, async () =>
      void (await expectFailure(chromeTraceAdapter, text, "ARTIFACT_PARSE_FAILED")));
  }

  test("truncated JSON (real files cut in half)", async () => {
    await expectFailure(
      cpuProfileAdapter,
      profileText.slice(0, profileText.length >> 1),
      "ARTIFACT_PARSE_FAILED",
    );
    // An object-form trace cut mid-way is not the truncated-array case the format allows.
    await expectFailure(
      chromeTraceAdapter,
      traceText.slice(0, traceText.length >> 1),
      "ARTIFACT_PARSE_FAILED",
    );
    await expectFailure(
      chromeTraceAdapter,
      '[{"ph":"X","ts":1,"dur":2,"name":"a"},{"ph":"X","ts":',
      "ARTIFACT_PARSE_FAILED",
    );
  });

  test(
    "nesting deeper than the limit fails before " + "parsing, with the limit in the message",
    async () => {
      const message = await expectFailure(
        chromeTraceAdapter,
        [[[[{ ph: "X" }]]]],
        "ARTIFACT_PARSE_FAILED",
        { maxNestingDepth: 3 },
      );
      expect(message).toContain("nesting deeper than 3");
    },
  );
});

describe("wrong shapes name the field", () => {
  const cpu = async (value: unknown) =>
    await expectFailure(cpuProfileAdapter, value, "ARTIFACT_PARSE_FAILED");
  test("cpuprofile fields", async () => {
    expect(await cpu({ nodes: "x", samples: [], timeDeltas: [] })).toBe(
      "Cannot parse cpuprofile: expected nodes to be an array but found string",
    );
    expect(await cpu({ nodes: [], samples: {}, timeDeltas: [] })).toBe(
      "Cannot parse cpuprofile: expected samples to be an array but found object",
    );
    expect(await cpu({ nodes: [], samples: [], timeDeltas: null })).toBe(
      "Cannot parse cpuprofile: expected timeDeltas to be an array but found null",
    );
    expect(await cpu({ nodes: [], samples: [], startTime: "0" })).toBe(
      "Cannot parse cpuprofile: expected startTime to be a finite number but found string",
    );
    expect(await cpu([1, 2])).toBe(
      "Cannot parse cpuprofile: expected the top-level value to be an object but found array",
    );
    expect(await cpu({ head: 3 })).toBe(
      "Cannot parse cpuprofile: expected head to be an object but found number",
    );
  });

  const node = (id: unknown, parentOf: number[] = []) => ({
    id,
    callFrame: { functionName: "f", url: "", lineNumber: 0, columnNumber: 0 },
    children: parentOf,
  });
  test("cpuprofile nodes and samples", async () => {
    expect(await cpu({ nodes: [node(1), "x"], samples: [], timeDeltas: [] })).toContain(
      "expected nodes[1] to be an object but found string",
    );
    expect(await cpu({ nodes: [node("1")], samples: [], timeDeltas: [] })).toContain(
      "expected nodes[0].id to be an integer but found string",
    );
    expect(await cpu({ nodes: [{ id: 1 }], samples: [], timeDeltas: [] })).toContain(
      "expected nodes[0].callFrame to be an object but found undefined",
    );
    expect(await cpu({ nodes: [node(1, [2])], samples: [], timeDeltas: [] })).toContain(
      "nodes[0].children[0] refers to an unknown node id 2",
    );
    expect(await cpu({ nodes: [node(1), node(1)], samples: [], timeDeltas: [] })).toContain(
      "node id 1 appears more than once",
    );
    expect(
      await cpu({ nodes: [node(1, [2]), node(2, [1])], samples: [], timeDeltas: [] }),
    ).toContain("cycle");
    expect(await cpu({ nodes: [node(1)], samples: ["1"], timeDeltas: [1] })).toContain(
      "expected samples[0] to be a number but found string",
    );
    expect(await cpu({ nodes: [node(1)], samples: [1], timeDeltas: ["1"] })).toContain(
      "expected timeDeltas[0] to be a finite number but found string",
    );
    expect(await cpu({ nodes: [node(1)], samples: [1, 7], timeDeltas: [1, 1] })).toContain(
      "samples[1] refers to an unknown node id 7",
    );
    // After numbers (which the scanner hands over as runs), a bad element keeps its index.
    const ones = (n: number) => Array.from({ length: n }, () => 1);
    expect(
      await cpu({
        nodes: [node(1)],
        samples: [...ones(70_000), null, 1],
        timeDeltas: ones(70_002),
      }),
    ).toContain("expected samples[70000] to be a number but found null");
    expect(
      await cpu({ nodes: [node(1)], samples: ones(3), timeDeltas: [1, 2, { d: 3 }] }),
    ).toContain("expected timeDeltas[2] to be a finite number but found object");
  });

  test("chrome trace container", async () => {
    const trace = async (value: unknown) =>
      await expectFailure(chromeTraceAdapter, value, "ARTIFACT_PARSE_FAILED");
    expect(await trace({ traceEvents: 5 })).toBe(
      "Cannot parse chrome trace: expected traceEvents to be an array but found number",
    );
    expect(await trace({ traceEvents: { ph: "X" } })).toBe(
      "Cannot parse chrome trace: expected traceEvents to be an array but found object",
    );
    expect(await trace(true)).toBe(
      "Cannot parse chrome trace: expected the top-level value to be an array or an object " +
        "but found boolean",
    );
  });

  test("malformed entries inside a trace are dropped and counted, not fatal", async () => {
    const evidence = await extractWith(chromeTraceAdapter, [
      null,
      3,
      "x",
      [],
      { name: "no phase" },
      { ph: "X", name: "ok", ts: 1, dur: 1, pid: 1, tid: 1 },
    ]);
    expect(evidence.limitations.find((l) => l.code === "malformed_events")?.count).toBe(5);
    expect(evidence.tables.trace_events.rowCount).toBe(1);
  });
});

describe("limits", () => {
  test("more events than maxEvents is ARTIFACT_TOO_LARGE", async () => {
    const events = Array.from({ length: 11 }, (_, i) => ({
      ph: "i",
      name: "tick",
      ts: i,
      pid: 1,
      tid: 1,
    }));
    await expectFailure(chromeTraceAdapter, events, "ARTIFACT_TOO_LARGE", { maxEvents: 10 });
    expect(
      (await extractWith(chromeTraceAdapter, events, { maxEvents: 11 })).tables.trace_events
        .rowCount,
    ).toBe(11);
  });

  test(
    "more samples than maxEvents is " + "ARTIFACT_TOO_LARGE (files and embedded profiles)",
    async () => {
      const profile = {
        nodes: [{ id: 1, callFrame: { functionName: "(root)" } }],
        samples: [1, 1, 1],
        timeDeltas: [1, 1, 1],
      };
      await expectFailure(cpuProfileAdapter, profile, "ARTIFACT_TOO_LARGE", { maxEvents: 2 });
      const trace = oneChunkProfileTrace({ cpuProfile: profile, timeDeltas: [1, 1, 1] });
      await expectFailure(chromeTraceAdapter, trace, "ARTIFACT_TOO_LARGE", { maxEvents: 2 });
    },
  );

  test("the error is a FlameoxError with remediation", async () => {
    let caught: unknown;
    try {
      await extractWith(cpuProfileAdapter, "{");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FlameoxError);
    expect((caught as FlameoxError).remediation.length).toBeGreaterThan(0);
  });
});

describe("nesting scan", () => {
  const scan = (text: string, max: number) => () => assertNestingWithin(payload(text), max, "test");
  test("counts brackets, not their look-alikes in strings", () => {
    expect(scan(`{"a":"${"[".repeat(1000)}"}`, 2)).not.toThrow();
    expect(scan(`{"a":"\\"[[[[\\\\"}`, 1)).not.toThrow();
    expect(scan(`["\\\\",[[1]]]`, 2)).toThrow(FlameoxError);
    expect(scan(`[[["]]]"]]]`, 3)).not.toThrow();
    expect(scan(`[[[[]]]]`, 3)).toThrow("nesting deeper than 3 levels at byte 3");
  });
});
