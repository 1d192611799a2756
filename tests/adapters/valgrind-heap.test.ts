/**
 * Valgrind heap profiles: massif's peak snapshot tree and DHAT's program points. Every
 * corpus file is detected and imports; per-function values equal an independent reading
 * of the raw file written here; and the two tools agree with each other on the same
 * program (massif's peak tree and DHAT's bytes live at t-gmax name the same functions
 * with the same bytes); bad input fails typed.
 */
import { describe, expect, test } from "bun:test";
import { dhatAdapter } from "../../src/adapters/dhat/adapter.ts";
import { massifAdapter } from "../../src/adapters/massif/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { expectFailure, extractWith, limitation, extracted } from "./adapter-harness.ts";
import { corpusFile, corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { chunked } from "./stream-harness.ts";

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
    if (m.metric !== metric || Number(m[column]) === 0) continue;
    const n = names.get(m.frame_id as string)!;
    out.set(n, (out.get(n) ?? 0) + Number(m[column]));
  }
  return out;
}
const sorted = (m: Map<string, number>) =>
  [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
const nameOf = (location: string) => {
  if (/below massif's threshold/.test(location)) return "(below massif's threshold)";
  const m = /^0x[0-9A-Fa-f]+: (.*?)(?: \((?:in .*|[^()]*:\d+(?::\d+)?)\))?$/.exec(location);
  return m ? m[1]! : location;
};

/**
 * The peak tree, read plainly: self of the allocating function (a depth-1 node) is all
 * its bytes; inclusive of a function is, per stack that reaches it, that stack's bytes once.
 */
function massifReference(text: string): {
  self: Map<string, number>;
  inclusive: Map<string, number>;
  total: number;
} {
  const lines = text.split("\n");
  const start = lines.indexOf("heap_tree=peak");
  const nodes: { depth: number; bytes: number; name: string }[] = [];
  for (const l of lines.slice(start + 1)) {
    const m = /^( *)n\d+: (\d+) (.*)$/.exec(l);
    if (!m) break;
    nodes.push({ depth: m[1]!.length, bytes: Number(m[2]), name: nameOf(m[3]!) });
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (map: Map<string, number>, k: string, v: number) => map.set(k, (map.get(k) ?? 0) + v);
  const path: string[] = [];
  nodes.forEach((n, i) => {
    path.length = n.depth;
    path[n.depth] = n.name;
    if (n.depth === 1) add(self, n.name, n.bytes);
    const children = nodes
      .slice(i + 1)
      .filter(
        (c, j, rest) => c.depth === n.depth + 1 && rest.slice(0, j).every((b) => b.depth > n.depth),
      );
    const own = n.bytes - children.reduce((a, c) => a + c.bytes, 0);
    if (n.depth >= 1 && own > 0) for (const f of new Set(path.slice(1))) add(inclusive, f, own);
  });
  return { self, inclusive, total: nodes[0]!.bytes };
}

describe("massif", () => {
  for (const file of corpusFiles("massif")) {
    test(
      `${file.name}: detected; the peak tree's bytes per function equal an independent ` +
        `reading`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(detectAdapter({ head: headOf(bytes), displayName: "upload" })?.name).toBe("massif");
        const evidence = await extracted(massifAdapter, {
          bytes,
          displayName: "t",
          limits: { maxEvents: 1e6, maxNestingDepth: 64, maxArgsBytes: 1024 },
        });
        const ref = massifReference(new TextDecoder().decode(bytes));
        expect(sorted(byFunction(evidence, "inuse_space", "self_value"))).toEqual(sorted(ref.self));
        expect(sorted(byFunction(evidence, "inuse_space", "inclusive_value"))).toEqual(
          sorted(ref.inclusive),
        );
        expect(
          [...byFunction(evidence, "inuse_space", "self_value").values()].reduce(
            (a, b) => a + b,
            0,
          ),
        ).toBe(Number(evidence.summary.peak_heap_bytes));
        expect(ref.total).toBe(Number(evidence.summary.peak_heap_bytes));
        const streamed = await massifAdapter.extractStream!({
          chunks: chunked(bytes, 61),
          displayName: "t",
          limits: { maxEvents: 1e6, maxNestingDepth: 64, maxArgsBytes: 1024 },
          sink: { writeBatch: async () => {} },
        });
        expect(rowsOf(streamed.tables.stacks!)).toEqual(rowsOf(evidence.tables.stacks));
      },
    );
  }

  test(
    "rules: below-threshold callers under their own root frame; no peak: the largest detailed " +
      "snapshot",
    async () => {
      const text = [
        "desc: (none)",
        "cmd: ./a",
        "time_unit: i",
        "#-----------",
        "snapshot=0",
        "#-----------",
        "time=0",
        "mem_heap_B=300",
        "mem_heap_extra_B=0",
        "mem_stacks_B=0",
        "heap_tree=detailed",
        "n2: 300 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.",
        " n2: 250 0x1: grow (a.c:3)",
        "  n0: 200 0x2: main (a.c:9)",
        "  n0: 50 in 3 places, all below massif's threshold (1.00%)",
        " n0: 50 in 1 place, below massif's threshold (1.00%)",
        "#-----------",
        "snapshot=1",
        "#-----------",
        "time=5",
        "mem_heap_B=10",
        "mem_heap_extra_B=0",
        "mem_stacks_B=0",
        "heap_tree=detailed",
        "n1: 10 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.",
        " n0: 10 0x1: grow (a.c:3)",
      ].join("\n");
      const evidence = await extractWith(massifAdapter, text);
      expect(evidence.summary.peak_snapshot).toBe(0);
      expect(byFunction(evidence, "inuse_space", "self_value")).toEqual(
        new Map([
          ["grow", 250],
          ["(below massif's threshold)", 50],
        ]),
      );
      const names = new Map(rowsOf(evidence.tables.frames).map((f) => [f.frame_id, f.function]));
      expect(
        rowsOf(evidence.tables.stacks)
          .map((s) => [
            (s.frame_ids as string[]).map((id) => names.get(id)).join(";"),
            s.duration_ns,
          ])
          .sort(),
      ).toEqual([
        ["(below massif's threshold)", 50],
        ["(below massif's threshold);grow", 50],
        ["main;grow", 200],
      ]);
      expect(limitation(evidence, "below_threshold")).toBe(100);
      expect(rowsOf(evidence.tables.frames).find((f) => f.function === "grow")).toMatchObject({
        file: "a.c",
        line: null,
        language: "native",
      });
    },
  );

  test("malformed input: typed errors", async () => {
    expect(
      await expectFailure(
        massifAdapter,
        "desc: x\ncmd: y\ntime_unit: i\nn1: 3 root\n",
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("outside a detailed snapshot");
    expect(
      await expectFailure(
        massifAdapter,
        "desc: x\ncmd: y\ntime_unit: i\nsnapshot=0\nheap_tree=sideways\n",
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("heap_tree=sideways");
    expect(
      await expectFailure(
        massifAdapter,
        "desc: x\ncmd: y\ntime_unit: i\nsnapshot=0\nthis is not massif\n",
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("neither");
    expect(await expectFailure(massifAdapter, "hello\n", "ARTIFACT_PARSE_FAILED")).toBeTruthy();
    // A node more than one level below the one before it has no parent: refused, not read with a
    // hole in its stack.
    const snapshot = "desc: x\ncmd: y\ntime_unit: i\nsnapshot=0\nheap_tree=peak\n";
    expect(
      await expectFailure(
        massifAdapter,
        `${snapshot}n1: 5 (heap allocation functions)\n   n0: 5 0x1: f (a.c:1)\n`,
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("depth 3 after one at depth 0");
    expect(
      await expectFailure(
        massifAdapter,
        `${snapshot} n0: 5 0x1: f (a.c:1)\n`,
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("depth 1 after one at depth -1");
    // A location holding a CR keeps it in the name.
    const cr = await extractWith(
      massifAdapter,
      `${snapshot}n1: 5 (heap allocation functions)\n n0: 5 0x1: f\rg (a.c:1)\n`,
    );
    expect(byFunction(cr, "inuse_space", "self_value")).toEqual(new Map([["f\rg", 5]]));
  });
});

describe("dhat", () => {
  const parse = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));
  /**
   * Per allocating function (first frame outside Valgrind's preloaded allocator): summed tb and gb.
   */
  function dhatReference(doc: any): { alloc: Map<string, number>; inuse: Map<string, number> } {
    const alloc = new Map<string, number>();
    const inuse = new Map<string, number>();
    for (const pp of doc.pps) {
      const site = (pp.fs as number[])
        .map((i) => doc.ftbl[i] as string)
        .find((f) => !/vgpreload_/.test(f) && f !== "[root]");
      if (site === undefined) continue;
      const name = nameOf(site);
      alloc.set(name, (alloc.get(name) ?? 0) + pp.tb);
      if (pp.gb > 0) inuse.set(name, (inuse.get(name) ?? 0) + pp.gb);
    }
    for (const m of [alloc, inuse]) for (const [k, v] of m) if (v === 0) m.delete(k);
    return { alloc, inuse };
  }

  for (const file of corpusFiles("dhat")) {
    test(
      `${file.name}: detected; allocated and peak bytes per allocating function equal an ` +
        `independent reading`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(detectAdapter({ head: headOf(bytes), displayName: "upload" })?.name).toBe("dhat");
        const evidence = await extracted(dhatAdapter, {
          bytes,
          displayName: "t",
          limits: { maxEvents: 1e6, maxNestingDepth: 64, maxArgsBytes: 1024 },
        });
        const ref = dhatReference(parse(bytes));
        expect(sorted(byFunction(evidence, "alloc_space", "self_value"))).toEqual(
          sorted(ref.alloc),
        );
        expect(sorted(byFunction(evidence, "inuse_space", "self_value"))).toEqual(
          sorted(ref.inuse),
        );
        expect(evidence.limitations.map((l) => l.code)).not.toContain("samples_without_stack");
      },
    );
  }

  test("massif's peak tree and DHAT's t-gmax agree on the same program", async () => {
    const massif = await extracted(massifAdapter, {
      bytes: loadPayload(corpusFile("massif", "local-valgrind-3.19.0-massif.out.prog").path),
      displayName: "m",
      limits: { maxEvents: 1e6, maxNestingDepth: 64, maxArgsBytes: 1024 },
    });
    const dhat = await extracted(dhatAdapter, {
      bytes: loadPayload(corpusFile("dhat", "local-valgrind-3.19.0-dhat.out.prog.json").path),
      displayName: "d",
      limits: { maxEvents: 1e6, maxNestingDepth: 64, maxArgsBytes: 1024 },
    });
    expect(sorted(byFunction(dhat, "inuse_space", "self_value"))).toEqual(
      sorted(byFunction(massif, "inuse_space", "self_value")),
    );
    expect(sorted(byFunction(dhat, "inuse_space", "inclusive_value"))).toEqual(
      sorted(byFunction(massif, "inuse_space", "inclusive_value")),
    );
    expect(byFunction(dhat, "inuse_space", "inclusive_value").get("main")).toBe(4191);
  });

  test("rules and malformed input", async () => {
    const doc = {
      dhatFileVersion: 2,
      mode: "heap",
      bklt: false,
      ftbl: [
        "[root]",
        "0x1: malloc (in /usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so)",
        "0x2: f (a.c:1)",
      ],
      pps: [{ tb: 10, tbk: 2, fs: [1, 2] }],
    };
    const evidence = await extractWith(dhatAdapter, doc);
    expect(byFunction(evidence, "alloc_objects", "self_value")).toEqual(new Map([["f", 2]]));
    expect(limitation(evidence, "no_block_lifetimes")).toBe(1);
    expect(evidence.summary.allocator_frames_dropped).toBe(1);
    expect(
      limitation(await extractWith(dhatAdapter, { ...doc, mode: "copy" }), "mode_not_imported"),
    ).toBe(1);
    expect(
      await expectFailure(dhatAdapter, { ...doc, dhatFileVersion: 1 }, "ARTIFACT_PARSE_FAILED"),
    ).toContain("dhatFileVersion");
    expect(
      await expectFailure(
        dhatAdapter,
        { ...doc, pps: [{ tb: 1, tbk: 1, fs: [7] }] },
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("pps[0].fs[0]");
    expect(
      await expectFailure(dhatAdapter, { ...doc, bklt: true }, "ARTIFACT_PARSE_FAILED"),
    ).toContain("pps[0].gb");
    expect(
      await expectFailure(
        dhatAdapter,
        { ...doc, pps: [{ tb: -1, tbk: 1, fs: [] }] },
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("pps[0].tb");
  });
});
