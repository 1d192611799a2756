import { describe, expect, test } from "bun:test";
import { checkParseRequest, PARSE_PROTOCOL } from "../../src/domain/parse-request.ts";

const ok = {
  protocol: PARSE_PROTOCOL,
  operation_id: "op_1",
  payload_path: "/tmp/p",
  display_name: "p.json",
  output_dir: "/tmp/out",
  adapter: null,
  limits: {
    max_events: 10,
    max_nesting_depth: 8,
    max_args_bytes: 1024,
    max_decompressed_bytes: 1 << 20,
    memory_bytes: 1 << 30,
  },
  provenance: { run_id: "run_1", artifact_id: "sha256:x", generation_id: "gen_1" },
};

describe("parse request", () => {
  test(
    "scan_threads is optional, and when given an integer from -1 (as many as there are cores " +
      "to spare) to 1024",
    () => {
      expect("request" in checkParseRequest(ok)).toBe(true);
      for (const threads of [-1, 0, 1, 1024])
        expect(
          "request" in
            checkParseRequest({ ...ok, limits: { ...ok.limits, scan_threads: threads } }),
        ).toBe(true);
      for (const threads of [-2, 1.5, 1025, "2", null]) {
        expect(
          checkParseRequest({ ...ok, limits: { ...ok.limits, scan_threads: threads } }),
        ).toEqual({ problem: "limits.scan_threads must be an integer from -1 to 1024" });
      }
    },
  );

  test("nest_thread is optional, and when given -1 (by the cores), 0 or 1", () => {
    for (const nest of [-1, 0, 1])
      expect(
        "request" in checkParseRequest({ ...ok, limits: { ...ok.limits, nest_thread: nest } }),
      ).toBe(true);
    for (const nest of [-2, 2, 0.5, "1", null])
      expect(checkParseRequest({ ...ok, limits: { ...ok.limits, nest_thread: nest } })).toEqual({
        problem: "limits.nest_thread must be -1, 0 or 1",
      });
  });

  test("the artifact id may be left out only for a landing payload, which names its size and file", () => {
    const { artifact_id: _, ...noArtifact } = ok.provenance;
    const landing = { payload_bytes: 0, landed_file: "/tmp/landed.json" };
    expect(checkParseRequest({ ...ok, provenance: noArtifact })).toEqual({
      problem: "provenance.artifact_id must be a string",
    });
    expect("request" in checkParseRequest({ ...ok, provenance: noArtifact, landing })).toBe(true);
    for (const bad of [
      { ...landing, payload_bytes: -1 },
      { ...landing, payload_bytes: 1.5 },
      { payload_bytes: 3 },
      null,
    ])
      expect(checkParseRequest({ ...ok, provenance: noArtifact, landing: bad })).toEqual({
        problem: "landing must name landed_file and an integer payload_bytes >= 0",
      });
  });

  test("the other limits must be integers above 0", () => {
    expect(checkParseRequest({ ...ok, limits: { ...ok.limits, max_events: 0 } })).toEqual({
      problem: "limits.max_events must be an integer > 0",
    });
    expect(checkParseRequest({ ...ok, limits: { ...ok.limits, memory_bytes: undefined } })).toEqual(
      { problem: "limits.memory_bytes must be an integer > 0" },
    );
  });
});
