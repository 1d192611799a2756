/**
 * callgrind: every corpus file (valgrind 3.19, pprof -callgrind goldens, speedscope's test
 * files) is detected and imports; self and inclusive values per function and metric equal
 * an independent reading of the raw file written here; valgrind's file agrees with
 * callgrind_annotate's own per-function totals (and its `totals:` line); speedscope's own
 * importer agrees where it reads the file as the format defines it, and where it does not
 * the difference is pinned and explained; hand-made cases for each rule and refusal.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { callgrindAdapter } from "../../src/adapters/callgrind/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { expectFailure, extractWith, limitation, extracted } from "./adapter-harness.ts";
import { corpusFile, corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { chunked } from "./stream-harness.ts";

const REFERENCE = join(import.meta.dir, "reference");
const ANNOTATE = JSON.parse(
  readFileSync(join(REFERENCE, "callgrind-annotate-3.19.json"), "utf8"),
).files;
const SPEEDSCOPE = JSON.parse(
  readFileSync(join(REFERENCE, "speedscope-1.25.0-importer-self.json"), "utf8"),
).files;

const extract = async (bytes: Uint8Array) =>
  await extracted(callgrindAdapter, { bytes, displayName: "t", limits: DEFAULT_ADAPTER_LIMITS });

/** The metric and ns/bytes scale each corpus event is expected to become. */
const EXPECTED_EVENTS: Record<string, [string, number] | null> = {
  Ir: ["instructions", 1],
  Instructions: ["instructions", 1],
  "cpu(ms)": ["cpu_time", 1e6],
  "inuse_space(MB)": ["inuse_space", 2 ** 20],
  "Time_(10ns)": ["wall_time", 10],
  "Memory_(bytes)": null,
};

interface Reference {
  events: string[];
  /** Per event: self per function name, and inclusive (self + calls to other functions). */
  self: Map<string, number>[];
  inclusive: Map<string, number>[];
}

/**
 * A deliberately plain reading of the format: per function *name*, self = the cost lines
 * under its fn= (not those after calls=), inclusive = self + the costs of its calls to
 * other names. Positions are skipped by count; costs may be compressed like positions.
 */
function reference(text: string): Reference {
  let positions = 1;
  let events: string[] = [];
  const ids = { fn: new Map<string, string>() };
  const name = (v: string) => {
    const def = /^\((\d+)\)\s*(.+)$/.exec(v.trim());
    if (def) {
      ids.fn.set(def[1]!, def[2]!.trim());
      return def[2]!.trim();
    }
    const ref = /^\((\d+)\)$/.exec(v.trim());
    return ref ? ids.fn.get(ref[1]!)! : v.trim();
  };
  let fn = "";
  let callee = "";
  let inCall = false;
  let prev: number[] = [];
  const self: Map<string, number>[] = [];
  const inclusive: Map<string, number>[] = [];
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("positions:")) positions = line.slice(10).trim().split(/\s+/).length;
    else if (line.startsWith("events:")) {
      events = line.slice(7).trim().split(/\s+/);
      events.forEach((_, i) => {
        self[i] ??= new Map();
        inclusive[i] ??= new Map();
      });
    } else if (line.startsWith("fn=")) fn = name(line.slice(3));
    else if (line.startsWith("cfn=")) callee = name(line.slice(4));
    else if (line.startsWith("calls=")) inCall = true;
    else if (/^[\d+*-]/.test(line)) {
      const nums = line
        .split(/\s+/)
        .map((t, i) => (t === "*" ? prev[i]! : /^[+-]/.test(t) ? prev[i]! + Number(t) : Number(t)));
      prev = nums;
      nums.slice(positions).forEach((cost, e) => {
        if (!inCall) {
          add(self[e]!, fn, cost);
          add(inclusive[e]!, fn, cost);
        } else if (callee !== fn) add(inclusive[e]!, fn, cost);
      });
      inCall = false;
    }
  }
  return { events, self, inclusive };
}

function byFunction(
  evidence: NormalizedEvidence,
  metric: string,
  column: "self_value" | "inclusive_value",
): Map<string, number> {
  const names = new Map(
    rowsOf(evidence.tables.frames).map((f) => [f.frame_id as string, f.function as string]),
  );
  const out = new Map<string, number>();
  for (const m of rowsOf(evidence.tables.frame_measurements)) {
    if (m.metric !== metric) continue;
    const n = names.get(m.frame_id as string)!;
    out.set(n, (out.get(n) ?? 0) + Number(m[column]));
  }
  return out;
}

const nonZero = (m: Map<string, number>) =>
  [...m].filter(([, v]) => v !== 0).sort((a, b) => (a[0] < b[0] ? -1 : 1));
const scaled = (m: Map<string, number>, k: number) =>
  new Map([...m].map(([n, v]) => [n, Math.round(v * k)]));

describe("callgrind corpus", () => {
  const files = corpusFiles("callgrind");
  test("the corpus has the vendored files", () => expect(files.length).toBeGreaterThanOrEqual(7));

  for (const file of files) {
    test(
      `${file.name}: detected; self and inclusive per function and event equal an independent ` +
        `reading`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(detectAdapter({ head: headOf(bytes), displayName: "upload" })?.name).toBe(
          "callgrind",
        );
        const evidence = await extract(bytes);
        const ref = reference(new TextDecoder().decode(bytes));
        expect(ref.events.length).toBeGreaterThan(0);
        ref.events.forEach((event, e) => {
          const want = EXPECTED_EVENTS[event];
          expect(want).toBeDefined();
          if (want === null) {
            expect(
              evidence.limitations.find((l) => l.code === "event_not_imported")?.message,
            ).toContain(event);
            return;
          }
          const [metric, k] = want!;
          expect(nonZero(byFunction(evidence, metric, "self_value"))).toEqual(
            nonZero(scaled(ref.self[e]!, k)),
          );
          expect(nonZero(byFunction(evidence, metric, "inclusive_value"))).toEqual(
            nonZero(scaled(ref.inclusive[e]!, k)),
          );
        });
        // The streaming path gives the same rows.
        const streamed = await callgrindAdapter.extractStream!({
          chunks: chunked(bytes, 61),
          displayName: "t",
          limits: DEFAULT_ADAPTER_LIMITS,
          sink: { writeBatch: async () => {} },
        });
        expect(rowsOf(streamed.tables.frame_measurements!)).toEqual(
          rowsOf(evidence.tables.frame_measurements),
        );
        expect(rowsOf(streamed.tables.call_edges!)).toEqual(rowsOf(evidence.tables.call_edges));
      },
    );
  }

  test(
    "valgrind 3.19: self per function equals callgrind_annotate's, and sums to the file's " +
      "totals: line",
    async () => {
      const evidence = await extract(
        loadPayload(corpusFile("callgrind", "local-valgrind-3.19.0-callgrind.out.prog").path),
      );
      const want = ANNOTATE["local-valgrind-3.19.0-callgrind.out.prog"];
      const self = byFunction(evidence, "instructions", "self_value");
      expect(nonZero(self)).toEqual(
        nonZero(new Map(Object.entries(want.self_by_function as Record<string, number>))),
      );
      expect([...self.values()].reduce((a, b) => a + b, 0)).toBe(want.total);
      expect([evidence.producer, evidence.producerVersion]).toEqual(["callgrind", "3.19.0"]);
      expect(evidence.limitations.map((l) => l.code)).not.toContain("totals_mismatch");
      // Recursion levels are separate functions (fib, fib'2); fib'2's calls to itself stay out of
      // its inclusive value.
      const incl = byFunction(evidence, "instructions", "inclusive_value");
      expect([incl.get("fib"), incl.get("fib'2"), self.get("fib'2")]).toEqual([
        2_175_707, 2_175_689, 2_175_689,
      ]);
      // main's call arc to fib carries the call count and its inclusive cost.
      const frames = new Map(rowsOf(evidence.tables.frames).map((f) => [f.frame_id, f.function]));
      const arc = rowsOf(evidence.tables.call_edges).find(
        (e) => frames.get(e.parent_frame_id) === "main" && frames.get(e.child_frame_id) === "fib",
      );
      expect([arc?.sample_count, arc?.duration_ns]).toEqual([1, 2_175_707]);
      expect(limitation(evidence, "missing_symbols")).toBeGreaterThan(0);
    },
  );

  test(
    "speedscope's importer agrees on every file it reads as the format defines it; the rest " +
      "differ for stated reasons",
    async () => {
      const ours = async (name: string, metric: string) =>
        byFunction(
          await extract(loadPayload(corpusFile("callgrind", name).path)),
          metric,
          "self_value",
        );
      const theirs = (name: string, profile = 0) =>
        new Map(
          Object.entries(
            SPEEDSCOPE[`callgrind/${name}`].profiles[profile].self_by_function as Record<
              string,
              number
            >,
          ),
        );
      for (const name of [
        "speedscope-callgrind.example.log",
        "speedscope-callgrind.name-compression.log",
        "speedscope-callgrind.subposition-compression.log",
      ]) {
        expect([name, nonZero(await ours(name, "instructions"))]).toEqual([
          name,
          nonZero(theirs(name)),
        ]);
      }
      // Xdebug's Time_(10ns): speedscope scales it to ns as well.
      expect(
        nonZero(await ours("speedscope-callgrind.multiple-event-types.log", "wall_time")),
      ).toEqual(nonZero(theirs("speedscope-callgrind.multiple-event-types.log")));
      // cfn-reset: the calls into gamma cost 20 but gamma's own cost lines hold 10. speedscope
      // rebuilds a tree from the call arcs and gives gamma 20; the file's cost lines (and
      // callgrind_annotate) say 10.
      expect((await ours("speedscope-callgrind.cfn-reset.log", "instructions")).get("gamma")).toBe(
        10,
      );
      expect(theirs("speedscope-callgrind.cfn-reset.log").get("gamma")).toBe(20);
      // pprof writes `positions: instr line`; speedscope reads one position column only (its
      // importer's TODO), so it takes the line number for the cost: line1000 has 1 ms in its
      // address-0x1000 line-1 row, which speedscope reads as cost 1 (+1 from its second row).
      const cpu = await ours("google-pprof-cpu.call_tree.callgrind", "cpu_time");
      expect(cpu.get("line1000")).toBe(1_100 * 1e6);
      expect(theirs("google-pprof-cpu.call_tree.callgrind").get("line1000")).toBe(2);
    },
  );
});

describe("callgrind rules", () => {
  const file = (body: string, header = "events: Ir Dr Dw\n") =>
    `# callgrind format\n${header}\n${body}`;

  test(
    "several events, each a metric; name compression across fl/fi/fe and cfi; call counts on " +
      "arcs",
    async () => {
      const evidence = await extractWith(
        callgrindAdapter,
        file(
          [
            "ob=(1) /bin/app",
            "fl=(1) main.c",
            "fn=(1) main",
            "3 10 4 2",
            "fi=(2) inline.h",
            "7 5 1 1",
            "fe=(1)",
            "cfi=(3) lib.c",
            "cfn=(2) work",
            "calls=3 20",
            "4 300 30 3",
            "",
            "fl=(3)",
            "fn=(2)",
            "20 300 30 3",
          ].join("\n"),
        ),
      );
      expect(evidence.summary.metrics).toBe("instructions,data_reads,data_writes");
      for (const [metric, main, work] of [
        ["instructions", 15, 300],
        ["data_reads", 5, 30],
        ["data_writes", 3, 3],
      ] as const) {
        expect(byFunction(evidence, metric, "self_value")).toEqual(
          new Map([
            ["main", main],
            ["work", work],
          ]),
        );
        expect(byFunction(evidence, metric, "inclusive_value").get("main")).toBe(main + work);
      }
      const frames = rowsOf(evidence.tables.frames);
      expect(frames.find((f) => f.function === "work")).toMatchObject({
        module: "/bin/app",
        file: "lib.c",
        language: "native",
      });
      expect(frames.length).toBe(2);
      const edges = rowsOf(evidence.tables.call_edges).filter((e) => e.metric === "instructions");
      expect(edges.map((e) => [e.sample_count, e.duration_ns])).toEqual([[3, 300]]);
      expect(
        rowsOf(evidence.tables.frame_measurements).find(
          (m) => m.metric === "instructions" && m.self_value === 300,
        )?.inclusive_samples,
      ).toBe(3);
    },
  );

  test("subposition compression: instr and line columns, *, +N, -N, 0x addresses", async () => {
    const evidence = await extractWith(
      callgrindAdapter,
      file(
        ["fl=a.c", "fn=f", "0x10 3 5", "+2 * 6", "-1 +1 7", "* * 8"].join("\n"),
        "positions: instr line\nevents: Ir\n",
      ),
    );
    expect(byFunction(evidence, "instructions", "self_value").get("f")).toBe(26);
    expect(evidence.limitations.map((l) => l.code)).not.toContain("invalid_lines");
  });

  test(
    "a callee named without a file matches the one function of that name; jump lines carry no " +
      "cost",
    async () => {
      const evidence = await extractWith(
        callgrindAdapter,
        file(
          [
            "fl=a.c",
            "fn=f",
            "fi=b.h",
            "1 1",
            "cfn=g",
            "calls=1 0",
            "1 9",
            "jump=2 +3",
            "+1",
            "",
            "fl=g.c",
            "fn=g",
            "5 9",
          ].join("\n"),
          "events: Ir\n",
        ),
      );
      expect(rowsOf(evidence.tables.frames).map((f) => [f.function, f.file])).toEqual([
        ["f", "a.c"],
        ["g", "g.c"],
      ]);
      expect(byFunction(evidence, "instructions", "self_value")).toEqual(
        new Map([
          ["f", 1],
          ["g", 9],
        ]),
      );
    },
  );

  test(
    "mutual recursion and unknown events are stated; totals that do not add up are " + "reported",
    async () => {
      const evidence = await extractWith(
        callgrindAdapter,
        file(
          [
            "fl=a.c",
            "fn=a",
            "1 1",
            "cfn=b",
            "calls=1 1",
            "1 5",
            "fn=b",
            "1 4",
            "cfn=a",
            "calls=1 1",
            "1 1",
          ].join("\n"),
          "events: Ir Weird\ntotals: 6\n",
        ),
      );
      expect(limitation(evidence, "call_cycles")).toBe(2);
      expect(evidence.limitations.find((l) => l.code === "event_not_imported")?.message).toContain(
        "Weird",
      );
      expect(limitation(evidence, "totals_mismatch")).toBe(1);
      expect(limitation(evidence, "no_call_stacks")).toBe(1);
    },
  );

  test("malformed input: typed errors naming the line", async () => {
    expect(
      await expectFailure(
        callgrindAdapter,
        "# callgrind format\nfn=main\n1 2\n",
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("before any `events:` line");
    expect(
      await expectFailure(
        callgrindAdapter,
        "# callgrind format\nfn=main\n",
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("no `events:` line");
    expect(
      await expectFailure(
        callgrindAdapter,
        "# callgrind format\nevents: Ir\nfn=(4)\n1 2\n",
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("line 3 refers to function (4)");
    expect(
      await expectFailure(
        callgrindAdapter,
        "# callgrind format\nevents: Ir\nfn=(1) a\nfn=(1) b\n",
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("redefines");
    expect(
      await expectFailure(
        callgrindAdapter,
        "# callgrind format\npositions: column\nevents: Ir\n",
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("positions:");
    expect(
      await expectFailure(
        callgrindAdapter,
        "# callgrind format\nevents: Ir\nfn=a\n1 2\n1 3\n",
        "ARTIFACT_TOO_LARGE",
        { maxEvents: 1 },
      ),
    ).toContain("cost lines");
    // Costs beyond 2^53 or negative are not summed: the line is counted as invalid.
    const evidence = await extractWith(
      callgrindAdapter,
      "# callgrind format\nevents: Ir\nfn=a\n1 99999999999999999999\n1 -3\n1 2\nnot a line\n",
    );
    expect(limitation(evidence, "invalid_lines")).toBe(3);
    expect(byFunction(evidence, "instructions", "self_value").get("a")).toBe(2);
  });

  test(
    "detection: the recommended first line, or events: then fn= (pprof, Xdebug); not " +
      "other text",
    () => {
      const detect = (head: string) => detectAdapter({ head, displayName: "x" })?.name ?? null;
      expect(detect("# callgrind format\nevents: Ir\n")).toBe("callgrind");
      expect(
        detect("positions: instr line\nevents: cpu(ms)\n\nob=(1) /bin\nfl=(1) a.c\nfn=(1) f\n"),
      ).toBe("callgrind");
      expect(detect("some text\nevents: Ir\nfn=f\n")).toBeNull();
      expect(detect("events: Ir\nno functions here\n")).toBeNull();
    },
  );
});
