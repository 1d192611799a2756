/**
 * The streamed `gecko` reader against the whole-payload reference (tests/adapters/
 * reference-gecko): every gecko and fxprofiler-processed corpus file, and hand-made cases
 * for the orders and shapes the corpus lacks, give the same rows in every table, the
 * same limitations and summary, or the same error code, through `extract` and through
 * `extractStream` in small chunks with spilling forced.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { geckoAdapter } from "../../src/adapters/gecko/adapter.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import { EVIDENCE_SCHEMAS, type EvidenceTableName } from "../../src/domain/evidence-schema.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { FileSpillSpace } from "../../workers/spill-space.ts";
import { mutatedInputs } from "../fuzz/mutations.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";
import { geckoReference } from "./reference-gecko/reference-adapter.ts";
import { bufferRows, runStream, streamedRows } from "./stream-harness.ts";
import { extracted } from "./adapter-harness.ts";

const TABLES = geckoAdapter.tables as EvidenceTableName[];
const limits = DEFAULT_ADAPTER_LIMITS;

async function outcome(run: Promise<NormalizedEvidence>): Promise<NormalizedEvidence | string> {
  try {
    return await run;
  } catch (error) {
    if (error instanceof FlameoxError) return error.code;
    throw error;
  }
}

async function streamOutcome(bytes: Uint8Array, chunkSize: number) {
  const dir = mkdtempSync(join(tmpdir(), "gecko-spill-"));
  const spill = new FileSpillSpace(dir, () => {});
  try {
    // Columns spill every 3 elements, so spilled blocks are read back (and tries spill too).
    const run = await runStream(geckoAdapter, bytes, {
      chunkSize,
      spill,
      maxStacksInMemory: 64,
      spoolRunEvents: 3,
    });
    const rows: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const buffer = run.evidence.tables[table];
      rows[table] = run.evidence.streamed.includes(table)
        ? streamedRows(run.batches, table)
        : buffer
          ? bufferRows(buffer)
          : [];
    }
    return { evidence: run.evidence, rows };
  } catch (error) {
    if (error instanceof FlameoxError) return error.code;
    throw error;
  } finally {
    spill.disposeAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

const sortRows = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

async function expectSame(bytes: Uint8Array): Promise<void> {
  const reference = await outcome(extracted(geckoReference, { bytes, displayName: "t", limits }));
  if (typeof reference === "string") {
    expect((await streamOutcome(bytes, 97)) as unknown).toBe(reference);
    return;
  }
  const streamed = await streamOutcome(bytes, 4093);
  expect(typeof streamed).toBe("object");
  const s = streamed as Exclude<typeof streamed, string>;
  expect(s.evidence.limitations).toEqual(reference.limitations);
  expect(s.evidence.summary).toEqual(reference.summary);
  expect(s.evidence.producer).toEqual(reference.producer);
  for (const table of TABLES) {
    const expected = bufferRows(reference.tables[table]);
    // Stacks stream in chunks of their own order; every other table keeps the rows' order.
    if (table === "stacks")
      expect({ table, rows: sortRows(s.rows[table]!) }).toEqual({
        table,
        rows: sortRows(expected),
      });
    else expect({ table, rows: s.rows[table] }).toEqual({ table, rows: expected });
  }
  void EVIDENCE_SCHEMAS;
}

describe("gecko streaming equals the whole-payload reference", () => {
  for (const format of ["gecko", "fxprofiler-processed"])
    for (const file of corpusFiles(format))
      test(`${format}/${file.name}`, async () => {
        await expectSame(loadPayload(file.path));
      });
});

// ---- hand-made cases -----------------------------------------------------------------------

const bytesOf = (doc: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(doc));
const table = (schema: string[], data: unknown[][]) => ({
  schema: Object.fromEntries(schema.map((f, i) => [f, i])),
  data,
});

/** A raw thread whose keys come in `order` (samples first, or tables first). */
function rawThread(name: string, order: "samples-first" | "tables-first", extra: object = {}) {
  const samples = table(
    ["stack", "time", "weight"],
    [
      [2, 0, null],
      [1, 1.5, 2],
      [null, 2],
      [2, 4, 1],
      [0, 3.5, 1],
    ],
  );
  const markers = table(
    ["name", "startTime", "endTime", "phase", "category", "data"],
    [
      [3, 0.5, 2.5, 1, 0, { category: "GC" }],
      [4, 1, null, 0, 0, null],
      [5, 1.2, null, 2, 0, { type: "x" }],
      [5, null, 3, 3, 0, null],
      [6, null, 3, 3, 0, null],
      [4, null, null, 7, 0, null],
    ],
  );
  const tables = {
    stringTable: [
      "main (file.js:3:4)",
      "0x1234",
      "native::work",
      "paint",
      "tick",
      "load",
      "orphan",
    ],
    frameTable: table(
      ["location", "implementation", "line", "column"],
      [[0, null, 3, 9], [1], [2, null, 8]],
    ),
    stackTable: table(
      ["prefix", "frame"],
      [
        [null, 0],
        [0, 1],
        [1, 2],
      ],
    ),
  };
  const body =
    order === "samples-first" ? { samples, markers, ...tables } : { ...tables, markers, samples };
  return { name, pid: 7, tid: name.length, ...body, ...extra };
}

const rawMeta = (extra: object = {}) => ({
  version: 19,
  interval: 1,
  startTime: 1000,
  stackwalk: 1,
  processType: 0,
  product: "Firefox",
  ...extra,
});

/** An old tracing-marker thread: data.interval start/end pairs, no phase column. */
function tracingThread() {
  return {
    name: "tracing",
    stringTable: ["f", "Paint", "Other"],
    frameTable: table(["location"], [[0]]),
    stackTable: table(["prefix", "frame"], [[null, 0]]),
    samples: table(
      ["stack", "time"],
      [
        [0, 1],
        [0, 2],
      ],
    ),
    markers: table(
      ["name", "time", "data"],
      [
        [1, 1, { interval: "start", category: "Paint" }],
        [1, 2, { interval: "end", category: "Paint" }],
        [2, 3, { interval: "end" }],
        [2, 4, { interval: "start" }],
      ],
    ),
  };
}

function processedProfile(sharedFirst: boolean) {
  const shared = {
    stringArray: ["work", "lib.so", "/src/a.c", "mark", "idle"],
    sources: { filename: [2] },
  };
  const thread = (name: string) => ({
    name,
    pid: "9",
    tid: 1,
    samples: {
      length: 4,
      stack: [1, 0, null, 1],
      timeDeltas: [0, 1, 1, 1.5],
      weight: [1, 2, 1, 0],
    },
    markers: {
      length: 3,
      name: [3, 3, 4],
      startTime: [0, 1, 2],
      endTime: [null, 1.5, null],
      phase: [0, 1, 2],
      data: [{ category: "c" }, null, null],
    },
    stackTable: { length: 2, frame: [0, 1], prefix: [null, 0] },
    frameTable: { length: 2, func: [0, 1] },
    funcTable: {
      length: 2,
      name: [0, 4],
      source: [0, null],
      isJS: [false, true],
      resource: [0, -1],
      lineNumber: [3, null],
    },
    resourceTable: { length: 1, name: [1], lib: [0] },
  });
  const meta = { version: 27, preprocessedProfileVersion: 50, interval: 0.5, product: "samply" };
  const libs = [{ name: "liba.so" }];
  return sharedFirst
    ? { meta, libs, shared, threads: [thread("a"), thread("b")] }
    : { threads: [thread("a"), thread("b")], libs, meta, shared };
}

const cases: [string, unknown][] = [
  [
    "raw, samples before the tables",
    { meta: rawMeta(), threads: [rawThread("main", "samples-first")] },
  ],
  [
    "raw, tables before the samples",
    { meta: rawMeta(), threads: [rawThread("main", "tables-first")] },
  ],
  [
    "raw, data before schema",
    {
      meta: rawMeta(),
      threads: [
        {
          ...rawThread("x", "samples-first"),
          samples: {
            data: [
              [0, 1],
              [1, 2],
            ],
            schema: { stack: 0, time: 1 },
          },
        },
      ],
    },
  ],
  [
    "raw, threads as JSON strings",
    {
      meta: rawMeta({ version: 3 }),
      threads: [JSON.stringify(rawThread("old", "samples-first")), JSON.stringify(tracingThread())],
    },
  ],
  [
    "raw, child processes before the root's threads, their meta last, nested",
    {
      processes: [
        {
          threads: [rawThread("child", "samples-first")],
          processes: [
            {
              threads: [rawThread("grandchild", "tables-first")],
              meta: rawMeta({ startTime: 1010 }),
            },
          ],
          meta: rawMeta({ startTime: 1002 }),
        },
        { meta: rawMeta({ startTime: 999 }), threads: [tracingThread()] },
      ],
      meta: rawMeta(),
      threads: [rawThread("parent", "tables-first"), rawThread("parent", "samples-first")],
      counters: [{}, {}],
    },
  ],
  [
    "devtools export wrapper",
    {
      label: "x",
      markers: [1],
      threads: "not these",
      profile: { libs: [], meta: rawMeta(), threads: [rawThread("dt", "samples-first")] },
      version: 1,
    },
  ],
  ["old tracing markers", { meta: rawMeta(), threads: [tracingThread()] }],
  [
    "a document with its own meta after a profile field: the document is the profile",
    {
      profile: { meta: rawMeta(), threads: [rawThread("ignored", "samples-first")] },
      threads: [rawThread("doc", "tables-first")],
      meta: rawMeta({ startTime: 5 }),
    },
  ],
  [
    "processed, child processes are not read",
    {
      ...processedProfile(true),
      processes: [{ meta: rawMeta(), threads: [rawThread("c", "samples-first")] }],
    },
  ],
  ["processed, shared strings and libs first", processedProfile(true)],
  ["processed, threads before meta, libs and shared", processedProfile(false)],
  [
    "allocations, CPU deltas",
    {
      meta: rawMeta(),
      threads: [
        {
          ...rawThread("m", "tables-first"),
          jsAllocations: { length: 2 },
          nativeAllocations: { data: [] },
          samples: table(["stack", "time", "threadCPUDelta"], [[0, 1, 5]]),
        },
      ],
    },
  ],
  // Bad input: the same typed error.
  ["top level not an object", [1, 2]],
  ["no meta", { threads: [] }],
  ["raw version 2", { meta: rawMeta({ version: 2 }), threads: [] }],
  ["threads not an array", { meta: rawMeta(), threads: {} }],
  [
    "stack index out of range",
    {
      meta: rawMeta(),
      threads: [{ ...rawThread("m", "samples-first"), samples: table(["stack"], [[9]]) }],
    },
  ],
  [
    "string index out of range",
    { meta: rawMeta(), threads: [{ ...rawThread("m", "samples-first"), stringTable: [] }] },
  ],
  [
    "a row that is not an array",
    {
      meta: rawMeta(),
      threads: [
        { ...rawThread("m", "samples-first"), samples: { schema: { stack: 0 }, data: [{}] } },
      ],
    },
  ],
  [
    "negative weight",
    {
      meta: rawMeta(),
      threads: [
        { ...rawThread("m", "samples-first"), samples: table(["stack", "weight"], [[0, -1]]) },
      ],
    },
  ],
  ["thread string that is not JSON", { meta: rawMeta(), threads: ["{nope"] }],
  ["child process without meta", { meta: rawMeta(), threads: [], processes: [{ threads: [] }] }],
  [
    "processed, unknown weightType",
    (() => {
      const p = processedProfile(true) as any;
      p.threads[0].samples.weightType = "cycles";
      return p;
    })(),
  ],
  [
    "processed, no strings anywhere",
    (() => {
      const p = processedProfile(true) as any;
      delete p.shared;
      return p;
    })(),
  ],
];

describe("hand-made cases: the same rows, or the same error code", () => {
  for (const [name, doc] of cases) test(name, async () => await expectSame(bytesOf(doc)));
  test("truncated and empty payloads fail the same way", async () => {
    const bytes = bytesOf({ meta: rawMeta(), threads: [rawThread("m", "samples-first")] });
    await expectSame(bytes.subarray(0, bytes.length - 7));
    await expectSame(new Uint8Array(0));
  });
  test("the event limit fails the same way", async () => {
    const bytes = bytesOf({ meta: rawMeta(), threads: [rawThread("m", "samples-first")] });
    const small = { ...limits, maxEvents: 3 };
    // While the thread's samples are still buffered (5 rows, before its tables).
    const run = runStream(geckoAdapter, bytes, { limits: small, chunkSize: 64 });
    expect(
      await run.then(
        () => "ok",
        (error: FlameoxError) => error.code,
      ),
    ).toBe("ARTIFACT_TOO_LARGE");
    const code = async (run: Promise<unknown>) => {
      try {
        await run;
        return "ok";
      } catch (error) {
        return (error as FlameoxError).code;
      }
    };
    const reference = await code(
      extracted(geckoReference, { bytes, displayName: "t", limits: small }),
    );
    expect(reference).toBe("ARTIFACT_TOO_LARGE");
    expect(await code(extracted(geckoAdapter, { bytes, displayName: "t", limits: small }))).toBe(
      reference,
    );
  });
});

describe("where the former reader had no typed answer", () => {
  test(
    "a stack without a prefix entry is a typed error (the former reader looped " + "forever)",
    async () => {
      const doc = {
        meta: rawMeta(),
        threads: [{ ...rawThread("m", "samples-first"), stackTable: table(["frame"], [[0], [1]]) }],
      };
      const bytes = bytesOf(doc);
      expect(await outcome(extracted(geckoAdapter, { bytes, displayName: "t", limits }))).toBe(
        "ARTIFACT_PARSE_FAILED",
      );
      expect((await streamOutcome(bytes, 97)) as unknown).toBe("ARTIFACT_PARSE_FAILED");
    },
  );
});

describe("mutated corpus files: the same outcome through both readers", () => {
  test("120 mutations of the vendored files", async () => {
    const seeds = ["gecko", "fxprofiler-processed"]
      .flatMap((f) => corpusFiles(f))
      .filter((f) => f.lane === "vendored")
      .map((f) => loadPayload(f.path))
      .filter((b) => b.length < 200_000);
    const digest = async (run: Promise<NormalizedEvidence>): Promise<string> => {
      try {
        const e = await run;
        return JSON.stringify([
          e.summary,
          e.limitations,
          TABLES.map((t) => bufferRows(e.tables[t]).length),
        ]);
      } catch (error) {
        if (!(error instanceof FlameoxError)) throw error;
        // The scanner caps a number literal's length (JSON.parse reads 5000 digits as Infinity).
        return error.message.includes("number literal too long") ? "number cap" : error.code;
      }
    };
    let compared = 0;
    for (const { bytes } of mutatedInputs(seeds, 120, 7)) {
      const streamed = await digest(extracted(geckoAdapter, { bytes, displayName: "t", limits }));
      if (streamed === "number cap") continue;
      const reference = await digest(
        extracted(geckoReference, { bytes, displayName: "t", limits }),
      );
      expect(streamed).toBe(reference);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });
});
