/**
 * The parse worker's response check: everything outside the protocol is named, a valid response
 * passes unchanged.
 */
import { describe, expect, test } from "bun:test";
import { checkParseResponse, PARSE_PROTOCOL } from "../../src/domain/parse-protocol.ts";

const ok = {
  protocol: PARSE_PROTOCOL,
  ok: true,
  adapter: "chrome-trace",
  adapter_version: "1.0.0",
  artifact_kind: "trace",
  media_type: "application/json",
  producer: null,
  producer_version: "1",
  compression: "none",
  tables: [
    {
      table: "trace_events",
      part: 0,
      file: "trace_events.0.parquet",
      rows: 70,
      schema_id: "trace_events@1",
    },
  ],
  limitations: [
    { code: "missing_symbols", message: "m" },
    { code: "x", message: "y", count: 3 },
  ],
  summary: { events: 70, name: "t", flag: true, none: null },
  peak_rss_bytes: 123,
  encode_threads: 1,
  stages_ms: { start: 12.5, total: 40 },
};

const without = (key: string) => Object.fromEntries(Object.entries(ok).filter(([k]) => k !== key));

describe("parse response check", () => {
  test("a complete response passes as it is, with or without stages", () => {
    expect(checkParseResponse(ok)).toEqual({ response: ok as never });
    expect("response" in checkParseResponse(without("stages_ms"))).toBe(true);
    const failure = {
      protocol: PARSE_PROTOCOL,
      ok: false,
      error: { code: "ARTIFACT_TOO_LARGE", message: "too big" },
    };
    expect(checkParseResponse(failure)).toEqual({ response: failure as never });
  });

  test.each([
    [null, "the response must be an object"],
    [{ ...ok, protocol: "flameox.parse.v1" }, "protocol must be"],
    [{ ...ok, ok: "yes" }, "ok must be true or false"],
    [without("adapter"), "adapter must be a string"],
    [{ ...ok, producer: 5 }, "producer must be a string or null"],
    [{ ...ok, compression: "brotli" }, "compression must be none, gzip or zstd"],
    [{ ...ok, tables: {} }, "tables must be an array"],
    // Companion declarations come from untrusted bytes: shape, size and adapter name are checked.
    [{ ...ok, companions: {} }, "companions must be an array"],
    [
      {
        ...ok,
        companions: [{ filename: "", byte_length: 4, adapter: "nvbench-samples", context: {} }],
      },
      "companions[0].filename must be a string",
    ],
    [
      {
        ...ok,
        companions: [
          { filename: "a.bin", byte_length: -1, adapter: "nvbench-samples", context: {} },
        ],
      },
      "companions[0].byte_length must be an integer >= 0",
    ],
    [
      { ...ok, companions: [{ filename: "a.bin", byte_length: 4, adapter: "../x", context: {} }] },
      "companions[0].adapter must be an adapter name",
    ],
    [
      {
        ...ok,
        companions: [
          {
            filename: "a.bin",
            byte_length: 4,
            adapter: "nvbench-samples",
            context: { d: { deep: { x: 1 } } },
          },
        ],
      },
      "companions[0].context values must be scalars",
    ],
    [
      {
        ...ok,
        companions: Array.from({ length: 1001 }, () => ({
          filename: "a.bin",
          byte_length: 4,
          adapter: "nvbench-samples",
          context: {},
        })),
      },
      "companions must hold at most 1000 files",
    ],
    [{ ...ok, tables: [{ ...ok.tables[0], part: 100000 }] }, "tables[0].part"],
    [{ ...ok, tables: [{ ...ok.tables[0], file: "../evil.parquet" }] }, "tables[0].file"],
    [{ ...ok, tables: [{ ...ok.tables[0], rows: -1 }] }, "tables[0].rows"],
    [{ ...ok, tables: [{ ...ok.tables[0], rows: 1.5 }] }, "tables[0].rows"],
    [{ ...ok, limitations: [{ code: "c" }] }, "limitations[0]"],
    [{ ...ok, limitations: [{ code: "c", message: "m", count: "3" }] }, "limitations[0].count"],
    [{ ...ok, summary: { nested: {} } }, "summary.nested"],
    [without("peak_rss_bytes"), "peak_rss_bytes"],
    [{ ...ok, encode_threads: 17 }, "encode_threads"],
    [{ ...ok, stages_ms: { total: "40" } }, "stages_ms.total"],
    [
      { protocol: PARSE_PROTOCOL, ok: false, error: { code: "INTERNAL_ERROR", message: "m" } },
      "error must have a code",
    ],
    [{ protocol: PARSE_PROTOCOL, ok: false }, "error must have a code"],
  ])("refuses %j", (value, problem) => {
    const checked = checkParseResponse(value);
    expect("problem" in checked && checked.problem).toContain(problem);
  });
});
