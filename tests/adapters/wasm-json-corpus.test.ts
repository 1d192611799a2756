/**
 * The WASM streaming path of the JSON adapters against their whole-payload (JSON.parse)
 * path, which is the reference: identical rows, limitations and summaries on every corpus
 * file, whatever the chunk boundaries; identical typed errors on malformed payloads.
 */
import { describe, test } from "bun:test";
import { adapterByName } from "../../src/adapters/registry.ts";
import { payload } from "./adapter-harness.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";
import { SAMPLES } from "../helpers.ts";
import { join } from "node:path";
import { expectSameOutcome } from "./wasm-equivalence.ts";

const chrome = adapterByName("chrome-trace")!;
const cpuprofile = adapterByName("v8-cpuprofile")!;

describe("chrome-trace: WASM stream equals JSON.parse on the corpus", () => {
  for (const file of corpusFiles("chrome-trace")) {
    test(file.name, async () => {
      const bytes = loadPayload(file.path);
      await expectSameOutcome(chrome, bytes, { displayName: file.name, chunkSize: 1 << 20 });
      if (bytes.length < 1 << 20)
        await expectSameOutcome(chrome, bytes, { displayName: file.name, chunkSize: 997 });
    });
  }
  test("fixtures/samples/sample-trace.json", async () => {
    await expectSameOutcome(chrome, loadPayload(join(SAMPLES, "sample-trace.json")), {
      chunkSize: 4096,
    });
  });
});

describe("v8-cpuprofile: WASM stream equals JSON.parse on the corpus", () => {
  for (const file of [
    ...corpusFiles("cpuprofile"),
    { name: "sample.cpuprofile", path: join(SAMPLES, "sample.cpuprofile") },
  ]) {
    test(file.name, async () => {
      await expectSameOutcome(cpuprofile, loadPayload(file.path), {
        displayName: file.name,
        chunkSize: 1009,
      });
    });
  }
});

describe("malformed payloads fail the same way on both paths", () => {
  const node = (id: unknown, children: number[] = []) => ({
    id,
    callFrame: { functionName: "f", url: "", lineNumber: 0, columnNumber: 0 },
    children,
  });
  const cases: [string, unknown][] = [
    ["empty", ""],
    ["whitespace", " \n "],
    ["not JSON", "hello"],
    ["a number", "42"],
    ["null", "null"],
    ["a string", '"x"'],
    ["trailing comma", '{"traceEvents":[{"ph":"X","ts":1},]}'],
    ["trailing data", '{"traceEvents":[]} x'],
    ["bad escape", '{"traceEvents":[{"ph":"\\x"}]}'],
    ["raw control char", '{"traceEvents":[{"ph":"\u0001"}]}'],
    ["leading zero", '[{"ph":"X","ts":01}]'],
    ["bare minus", '[{"ph":"X","ts":-}]'],
    ["cut array", '[{"ph":"X","ts":1,"dur":2},{"ph":"X","ts":'],
    ["traceEvents not an array", { traceEvents: {} }],
    ["no traceEvents", { other: 1 }],
    ["BOM", "\ufeff[]"],
    [
      "lone surrogates and escapes",
      '[{"ph":"X","ts":1,"dur":1,"name":"a\\ud800b","cat":"\\u00e9\\/",' +
        '"args":{"s":"\\ud83d\\ude00\\ud800","n":1.50,"1":2}}]',
    ],
    [
      "invalid UTF-8",
      new Uint8Array([
        0x5b, 0x7b, 0x22, 0x70, 0x68, 0x22, 0x3a, 0x22, 0x58, 0x22, 0x2c, 0x22, 0x74, 0x73, 0x22,
        0x3a, 0x31, 0x2c, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xe2, 0x82, 0x22,
        0x7d, 0x5d,
      ]),
    ],
    [
      "integer-like keys in nested args",
      '[{"ph":"X","ts":1,"dur":1,"args":{"a":{"2":1,"1":[{"10":0,"9":1}]},"0":{"b":2}}}]',
    ],
    [
      "numbers JSON.parse reads exactly",
      '[{"ph":"X","ts":1234567890123456.7,"dur":1e-7,"args":{"a":-0,"b":1E+2,"c":0.1000,' +
        '"d":123456789012345678}}]',
    ],
    ["cpuprofile nodes not an array", { nodes: "x", samples: [], timeDeltas: [] }],
    [
      "cpuprofile samples not numbers",
      {
        nodes: [{ id: 1, callFrame: { functionName: "(root)" } }],
        samples: ["1"],
        timeDeltas: [1],
      },
    ],
    [
      "cpuprofile deltas not numbers",
      {
        nodes: [{ id: 1, callFrame: { functionName: "(root)" } }],
        samples: [1],
        timeDeltas: [null],
      },
    ],
    ["cpuprofile unknown child", { nodes: [node(1, [2])], samples: [], timeDeltas: [] }],
    ["cpuprofile duplicate ids", { nodes: [node(1), node(1)], samples: [], timeDeltas: [] }],
    ["cpuprofile node not an object", { nodes: [node(1), "x"], samples: [], timeDeltas: [] }],
    ["legacy head not an object", { head: 3 }],
    ["deep nesting", "[".repeat(300) + "]".repeat(300)],
  ];
  for (const [label, value] of cases) {
    const bytes = value instanceof Uint8Array ? value : payload(value);
    test(`chrome-trace: ${label}`, () => expectSameOutcome(chrome, bytes, { chunkSize: 3 }));
    test(`v8-cpuprofile: ${label}`, () => expectSameOutcome(cpuprofile, bytes, { chunkSize: 5 }));
  }
  test("nesting limit and event limit", async () => {
    await expectSameOutcome(chrome, payload([[[[{ ph: "X" }]]]]), {
      limits: { maxNestingDepth: 3 },
    });
    await expectSameOutcome(
      chrome,
      payload([
        { ph: "X", ts: 1 },
        { ph: "X", ts: 2 },
        { ph: "X", ts: 3 },
      ]),
      { limits: { maxEvents: 2 } },
    );
    await expectSameOutcome(
      chrome,
      payload({ traceEvents: [{ ph: "X", ts: 1, args: { long: "é".repeat(900) } }] }),
      { limits: { maxArgsBytes: 100 } },
    );
  });
});
