/**
 * The WASM JSON scanner on its own: its records do not depend on where the input is cut
 * into chunks (tokens are taken whole when they lie in one chunk, and resumed byte by
 * byte when they cross a boundary), a batch never outgrows the output area however large
 * the chunk, and captured JSON equals JSON.stringify(JSON.parse(text)).
 */
import { describe, expect, test } from "bun:test";
import { traceProgram } from "../../src/adapters/chrome-trace/trace-program.ts";
import {
  profileProgram,
  R_DELTA,
  R_SAMPLE,
} from "../../src/adapters/v8-cpuprofile/profile-program.ts";
import {
  TAG_ABSENT,
  TAG_JSON,
  TAG_TRUNCATED,
  type JsonBatch,
} from "../../src/adapters/wasm/json-batch.ts";
import {
  JsonProgram,
  MODE_JSON,
  MODE_NUMBER_RUN,
  MODE_SCALAR,
} from "../../src/adapters/wasm/json-program.ts";
import { JsonScanner } from "../../src/adapters/wasm/json-scanner.ts";

/** Every record of every batch, decoded (batches are only valid until drained). */
async function transcript(
  program: JsonProgram,
  bytes: Uint8Array,
  chunkSize: number,
  truncateJsonAt = 65536,
): Promise<{
  records: unknown[];
  batchSizes: number[];
  /** Each record type's number runs, joined (they may be cut anywhere between batches). */
  numbers: Record<number, unknown[]>;
  runValuesPerBatch: number[];
  error?: string;
}> {
  const scanner = await JsonScanner.open(program, { format: "test", maxDepth: 64, truncateJsonAt });
  const records: unknown[] = [];
  const batchSizes: number[] = [];
  const numbers: Record<number, unknown[]> = {};
  const runValuesPerBatch: number[] = [];
  const slots = program.slotsPerRecord;
  const onBatch = (b: JsonBatch) => {
    batchSizes.push(b.count);
    let runValues = 0;
    b.forEachRun((type, values) => {
      runValues += values.length;
      for (const v of values) (numbers[type] ??= []).push(Object.is(v, -0) ? "-0" : v);
    });
    runValuesPerBatch.push(runValues);
    for (let r = 0; r < b.count; r++) {
      const fields: unknown[] = [];
      for (let s = 0; s < slots && !b.announced(r); s++) {
        const kind = b.kind(r, s);
        if (kind === TAG_ABSENT) fields.push(null);
        else if (kind === TAG_JSON)
          fields.push({
            json:
              (b.tag(r, s) & TAG_TRUNCATED) !== 0
                ? `cut:${new TextDecoder().decode(b.textBytes(r, s))}`
                : b.json(r, s),
          });
        else fields.push([kind, b.int(r, s), Object.is(b.value(r, s), -0) ? "-0" : b.value(r, s)]);
      }
      records.push([
        b.type(r),
        b.serial(r),
        b.parent(r),
        b.index(r),
        b.selfKind(r),
        b.special(r),
        b.announced(r),
        fields,
      ]);
    }
  };
  try {
    for (let at = 0; at < bytes.length; at += chunkSize)
      scanner.push(bytes.subarray(at, at + chunkSize), onBatch);
    scanner.finish(true, onBatch);
  } catch (error) {
    return { records, batchSizes, numbers, runValuesPerBatch, error: (error as Error).message };
  }
  return { records, batchSizes, numbers, runValuesPerBatch };
}

/** The transcript's parts that do not depend on where batches were cut. */
const content = (t: Awaited<ReturnType<typeof transcript>>) => ({
  records: t.records,
  numbers: t.numbers,
  error: t.error,
});

const enc = new TextEncoder();
const DOCUMENTS: [string, () => JsonProgram, string][] = [
  [
    "trace events",
    traceProgram,
    `{"traceEvents":[
    {"ph":"X","cat":"gen","name":"task_1::step_2","pid":1,"tid":5,"ts":1000000,"dur":1096,\
"args":{"i":9,"s":"x"}},
    {"ph" : "B" , "name":"é日本😀","pid":-0,"tid":0,"ts":12.50,"args":{"a":[true,false,null],\
"n":1e21,"m":-1.5e-7,"d":123456789012345678}},
    {"ph":"E","ts":1234567890123456,"id":"0x1f",\
"args":{"esc":"a\\"b\\\\c\\/d\\n\\u0041\\ud83d\\ude00\\ud800","2":{"1":[{"10":1,"9":2}],"0":0}}},
    {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"${"w".repeat(70)}"}},
    {"ph":"X","name":"${"n".repeat(40)}\\t","cat":"c,d","ts":0,"dur":0.001,"id":{"local":"1"},\
"args":null},
    {"ph":"i","s":"t","unknown":{"deep":[[{"x":"y"}],"z",1.0,0,-0.0]},"ts":7,\
"args":"${"q".repeat(300)}"}
  ],"metadata":{"b":1,"a":"2","1":null},"displayTimeUnit":"ns"}`,
  ],
  [
    "cpuprofile",
    profileProgram,
    `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"",\
"lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3]},
    {"id":2,"callFrame":{"functionName":"f\\u00e9","url":"file:///a.js","lineNumber":10,\
"columnNumber":4},"parent":1},
    {"id":3,"callFrame":{"functionName":"g","url":"file:///b.js","lineNumber":0,"columnNumber":0},\
"parent":1}],
    "startTime":1000,"endTime":2000.5,"samples":[2,3,2,3,1],"timeDeltas":[0,10,-3,1e2,5]}`,
  ],
  [
    "cpuprofile with elements that are not numbers",
    profileProgram,
    `{"nodes":[],"samples":[2,"x",3,{"a":[1,2]},null,[4,[5]],-0,1E2,7],\
"timeDeltas":[0,1.50,true,-1e-7,123456789012345678,false,{"b":"\\u0041"}]}`,
  ],
  [
    "top-level array",
    traceProgram,
    `[{"ph":"X","ts":1,"dur":2,"name":"a"},{"ph":"X","ts":3,"dur":4,"name":"b"},`,
  ],
];

describe("WASM JSON scanner", () => {
  for (const [label, program, text] of DOCUMENTS) {
    test(`${label}: the same records whatever the chunk boundaries`, async () => {
      const bytes = enc.encode(text);
      const whole = await transcript(program(), bytes, 1 << 20);
      expect(whole.error).toBeUndefined();
      expect(whole.records.length).toBeGreaterThan(0);
      for (const size of [1, 2, 3, 5, 7, 16, 17, 31, 64, 101]) {
        expect(content(await transcript(program(), bytes, size))).toEqual(content(whole));
      }
      // And with short JSON texts cut, which must also not depend on the chunks.
      const cut = await transcript(program(), bytes, 1 << 20, 20);
      for (const size of [1, 3, 16])
        expect(content(await transcript(program(), bytes, size, 20))).toEqual(content(cut));
    });
  }

  test("errors and their offsets do not depend on the chunk boundaries", async () => {
    const cases = [
      '[{"ph":"X","ts":01}]',
      '[{"ph":"X","ts":1.}]',
      '[{"ph":"X","ts":-}]',
      '[{"ph":"X","ts":1e+}]',
      '[{"ph":"X","name":"a\\x"}]',
      '[{"ph":"X","name":"a\u0001"}]',
      '[{"ph":"X","ts":tru}]',
      '[{"ph":"X","ts":nul]',
      '[{"ph":"X","ts":1}] x',
      '[{"ph":"X",}]',
      '[{"ph" "X"}]',
      "[1 2]",
      `[{"ph":"X","ts":1${"0".repeat(5000)}}]`,
      '{"traceEvents":[{"args":{"a":[1,2,]}}]}',
      '[{"ph":"X","args":{"s":"\\ud800\\u12"}}]',
    ];
    // The same malformed numbers where they are number-run elements.
    const runCases = ["01", "1.", "-", "1e+", "1 2", "1,]", "tru"].map(
      (t) => `{"samples":[5,${t}]}`,
    );
    for (const [program, texts] of [
      [traceProgram, cases],
      [profileProgram, runCases],
    ] as const) {
      for (const text of texts) {
        const bytes = enc.encode(text);
        const whole = await transcript(program(), bytes, 1 << 20);
        expect(whole.error).toBeDefined();
        for (const size of [1, 2, 3, 7, 16])
          expect(content(await transcript(program(), bytes, size))).toEqual(content(whole));
      }
    }
  });

  test("a batch never outgrows the output area, however large the chunk", async () => {
    const count = 100_000;
    const bytes = enc.encode(
      `{"samples":[${Array.from({ length: count }, (_, i) => i % 997).join(",")}` +
        `],"timeDeltas":[${Array.from({ length: count }, () => "true").join(",")}]}`,
    );
    const { records, batchSizes, numbers, runValuesPerBatch, error } = await transcript(
      profileProgram(),
      bytes,
      bytes.length,
    );
    expect(error).toBeUndefined();
    // The samples come as number runs; each `true` as a record, with NaN in its run.
    expect(records.length).toBe(count + 1);
    expect(numbers[R_SAMPLE]).toEqual(Array.from({ length: count }, (_, i) => i % 997));
    expect(numbers[R_DELTA]).toEqual(Array.from({ length: count }, () => Number.NaN));
    expect(batchSizes.length).toBeGreaterThan(1);
    for (const size of batchSizes) expect(size).toBeLessThanOrEqual(16384 - 4096);
    for (const values of runValuesPerBatch) expect(values).toBeLessThanOrEqual(65536);
  });

  test("number runs hold JSON.parse's numbers, and a NaN for each element that is not one", async () => {
    const texts = [
      "0",
      "-0",
      "1.50",
      "1E21",
      "-1e-7",
      "123456789012345678",
      "0.1",
      "9007199254740993",
      "5e-324",
    ];
    const bytes = enc.encode(`{"samples":[${texts.join(",")},"s",[1],{}]}`);
    // The reference: JSON.parse of the same texts.
    const samples = JSON.parse(`[${texts.join(",")}]`) as number[];
    for (const size of [1, 2, 5, 1 << 20]) {
      const t = await transcript(profileProgram(), bytes, size);
      expect(t.error).toBeUndefined();
      expect(t.numbers[R_SAMPLE]).toEqual([
        ...samples.map((v) => (Object.is(v, -0) ? "-0" : v)),
        Number.NaN,
        Number.NaN,
        Number.NaN,
      ]);
      // The three others are records in document order, with JSON.parse's values.
      const others = t.records.filter((r) => (r as unknown[])[0] === R_SAMPLE) as unknown[][];
      expect(others.map((r) => r[3])).toEqual([9, 10, 11]);
      expect(others.map((r) => r[4])).toEqual([1, 7, 6]);
    }
  });

  test("number runs of every element shape: JSON.parse's values, whatever the chunks", async () => {
    // Plain integers are taken by the scanner's run loop while they lie whole in a chunk and
    // are followed at once by a comma and the next number; everything else, and every element
    // cut by a chunk boundary, by the general path. Both must agree with JSON.parse.
    let state = 7;
    const next = (n: number) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state % n;
    };
    const digits = (n: number) =>
      String(1 + next(9)) + Array.from({ length: n - 1 }, () => next(10)).join("");
    const shapes = [
      () => String(next(10)),
      () => digits(1 + next(6)),
      () => `-${digits(1 + next(6))}`,
      () => digits(15),
      () => `-${digits(15)}`,
      () => digits(16),
      () => "-0",
      () => "0",
      () => `${digits(2)}.${digits(2)}`,
      () => `${digits(1)}e${next(30)}`,
      () => `${digits(1)}E-${next(9)}`,
      () => `0.${next(10)}`,
      () => '"s"',
      () => "true",
      () => "[1,2]",
      () => "{}",
    ];
    const separators = [",", ",", ",", ",", ", ", " ,", ",\n  "];
    const elements = (count: number) =>
      Array.from({ length: count }, (_, i) => {
        const element = shapes[next(shapes.length)]!();
        return i === 0 ? element : separators[next(separators.length)]! + element;
      }).join("");
    const text =
      `{"nodes":[],"samples":[${elements(3000)}],"timeDeltas":[ ${elements(3000)} ],` +
      `"startTime":0}`;
    const parsed = JSON.parse(text) as { samples: unknown[]; timeDeltas: unknown[] };
    const expected = (values: unknown[]) =>
      values.map((v) =>
        typeof v !== "number" ? Number.NaN : Object.is(v, -0) ? "-0" : (v as number),
      );
    const bytes = enc.encode(text);
    const whole = await transcript(profileProgram(), bytes, 1 << 20);
    expect(whole.error).toBeUndefined();
    expect(whole.numbers[R_SAMPLE]).toEqual(expected(parsed.samples));
    expect(whole.numbers[R_DELTA]).toEqual(expected(parsed.timeDeltas));
    for (const size of [1, 2, 3, 5, 8, 13, 64, 999])
      expect(content(await transcript(profileProgram(), bytes, size))).toEqual(content(whole));
  });

  test("a number run inside captured JSON leaves the capture canonical", async () => {
    const program = new JsonProgram(1);
    program.record(0, 0);
    const list = program.key(0, "a");
    program.slot(list, 0, 0, MODE_JSON);
    program.slot(
      program.elem(list, program.node({ record: 1 })),
      1,
      0,
      MODE_SCALAR | MODE_NUMBER_RUN,
    );
    const text = `{"a":[1.0,2e1,-0,"s",{"2":1,"1":0},3]}`;
    for (const size of [1, 3, 1 << 20]) {
      const t = await transcript(program, enc.encode(text), size);
      expect(t.error).toBeUndefined();
      expect(t.numbers[1]).toEqual([1, 20, "-0", Number.NaN, Number.NaN, 3]);
      const root = t.records.find((r) => (r as unknown[])[0] === 0) as unknown[];
      expect((root[7] as unknown[])[0]).toEqual({ json: JSON.stringify(JSON.parse(text).a) });
    }
  });

  test("captured JSON is canonical, integer-like keys included at any depth", async () => {
    const args = {
      b: { "2": 1, "1": [{ "10": 1, "9": 2, x: "y" }] },
      "0": "z",
      s: "é\u0001\ud800",
    };
    const bytes = enc.encode(`[{"ph":"X","ts":1,"args":${JSON.stringify(args)}}]`);
    for (const size of [1 << 20, 1, 4]) {
      const { records, error } = await transcript(traceProgram(), bytes, size);
      expect(error).toBeUndefined();
      const event = records.find((r) => (r as unknown[])[0] === 1) as unknown[];
      expect((event[7] as unknown[])[8]).toEqual({
        json: JSON.stringify(JSON.parse(JSON.stringify(args))),
      });
    }
  });
});
