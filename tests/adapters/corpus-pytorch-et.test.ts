/**
 * PyTorch execution traces as operator trees: every corpus file imported and its calls,
 * edges and root-to-operator paths checked against the parent links walked here from the
 * raw JSON; hand-made cases for the later node shape (ctrl_deps, attrs), orphans, and
 * each refusal (cycles, duplicate ids, wrong types, over-limit).
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { MAX_STACK_FRAMES } from "../../src/adapters/common/stack-trie.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { expectFailure, extractWith, limitation, extracted } from "./adapter-harness.ts";
import { corpusFiles, headOf, loadPayload, parseLoose } from "./corpus-files.ts";

const adapter = adapterByName("pytorch-et")!;

interface RawNode {
  id: number;
  name: string;
  parent: number;
  scope: number;
  tid: number;
}

/**
 * Operator name by frame id, calls (self, inclusive) per operator, edges and paths, from the
 * tables.
 */
function tablesOf(evidence: NormalizedEvidence) {
  const { frames, frame_measurements: fm, call_edges: edges, stacks } = evidence.tables;
  const nameOf = new Map<string, string>();
  for (let i = 0; i < frames.rowCount; i++)
    nameOf.set(
      frames.column("frame_id")[i] as string,
      `${frames.column("function")[i]}|${frames.column("module")[i]}`,
    );
  const calls = new Map<string, [number, number]>();
  for (let i = 0; i < fm.rowCount; i++) {
    expect(fm.column("metric")[i]).toBe("calls");
    expect(fm.column("unit")[i]).toBe("count");
    const name = nameOf.get(fm.column("frame_id")[i] as string)!;
    const [s, inc] = calls.get(name) ?? [0, 0];
    calls.set(name, [
      s + Number(fm.column("self_value")[i]),
      inc + Number(fm.column("inclusive_value")[i]),
    ]);
  }
  const edgeCounts = new Map<string, number>();
  for (let i = 0; i < edges.rowCount; i++) {
    const key =
      `${nameOf.get(edges.column("parent_frame_id")[i] as string)} ` +
      `> ${nameOf.get(edges.column("child_frame_id")[i] as string)}`;
    edgeCounts.set(key, (edgeCounts.get(key) ?? 0) + Number(edges.column("sample_count")[i]));
  }
  const paths = new Map<string, number>();
  for (let i = 0; i < stacks.rowCount; i++) {
    const key = (stacks.column("frame_ids")[i] as string[]).map((f) => nameOf.get(f)).join(" > ");
    paths.set(key, (paths.get(key) ?? 0) + Number(stacks.column("sample_count")[i]));
  }
  return { frames: nameOf.size, calls, edgeCounts, paths };
}

/** The same figures from the raw nodes: each node one call, its path up the parent links. */
function expected(nodes: RawNode[]) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const label = (n: RawNode) => `${n.name}|${n.scope === 7 ? "user_annotation" : "cpu_op"}`;
  const calls = new Map<string, [number, number]>();
  const edgeCounts = new Map<string, number>();
  const paths = new Map<string, number>();
  for (const node of nodes) {
    const chain: RawNode[] = [];
    for (
      let n: RawNode | undefined = node;
      n;
      n = n.parent === n.id ? undefined : byId.get(n.parent)
    )
      chain.unshift(n);
    const names = chain.map(label);
    paths.set(names.join(" > "), (paths.get(names.join(" > ")) ?? 0) + 1);
    const self = calls.get(label(node)) ?? [0, 0];
    calls.set(label(node), [self[0] + 1, self[1]]);
    for (const name of new Set(names)) {
      const c = calls.get(name) ?? [0, 0];
      calls.set(name, [c[0], c[1] + 1]);
    }
    const pairs = new Set(names.slice(1).map((n, i) => `${names[i]} > ${n}`));
    for (const pair of pairs) edgeCounts.set(pair, (edgeCounts.get(pair) ?? 0) + 1);
  }
  return { frames: new Set(nodes.map(label)).size, calls, edgeCounts, paths };
}

describe("PyTorch execution trace corpus", () => {
  const files = corpusFiles("pytorch-et");
  test("the corpus has execution traces", () => expect(files.length).toBeGreaterThan(0));
  for (const file of files) {
    test(
      `${file.name}: every node is a call under its parents; calls, edges and paths equal the ` +
        `raw parent links`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(detectAdapter({ head: headOf(bytes), displayName: file.name })?.name).toBe(
          "pytorch-et",
        );
        const evidence = await extracted(adapter, {
          bytes,
          displayName: file.name,
          limits: DEFAULT_ADAPTER_LIMITS,
        });
        const doc = parseLoose(bytes) as { schema: string; nodes: RawNode[] };
        expect(evidence.producerVersion).toBe(doc.schema);
        expect(evidence.summary).toMatchObject({ nodes: doc.nodes.length, orphans: 0 });
        expect(limitation(evidence, "no_timing")).toBe(1);
        const got = tablesOf(evidence);
        const want = expected(doc.nodes);
        expect(got.frames).toBe(want.frames);
        expect(Object.fromEntries(got.calls)).toEqual(Object.fromEntries(want.calls));
        expect(Object.fromEntries(got.edgeCounts)).toEqual(Object.fromEntries(want.edgeCounts));
        expect(Object.fromEntries(got.paths)).toEqual(Object.fromEntries(want.paths));
        expect([...got.paths.values()].reduce((a, b) => a + b, 0)).toBe(doc.nodes.length);
      },
    );
  }
});

const node = (id: number, name: string, parent: number, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  parent,
  tid: 1,
  scope: 0,
  ...extra,
});
const trace = (nodes: unknown[]) => ({ schema: "1.0.1", pid: 7, nodes });

describe("PyTorch execution trace cases", () => {
  test("the later node shape (ctrl_deps, attrs) reads the same tree", async () => {
    const attrs = (tid: number, scope: number) => [
      { name: "rf_id", type: "uint64", value: 1 },
      { name: "tid", type: "uint64", value: tid },
      { name: "scope", type: "uint64", value: scope },
    ];
    const evidence = await extractWith(adapter, {
      schema: "1.1.1-chakra.0.0.4",
      pid: 7,
      nodes: [
        {
          id: 1,
          name: "[pytorch|profiler|execution_trace|process]",
          ctrl_deps: 1,
          attrs: attrs(0, 7),
        },
        { id: 2, name: "## forward ##", ctrl_deps: 1, attrs: attrs(1, 7) },
        { id: 3, name: "aten::mm", ctrl_deps: 2, attrs: attrs(1, 0) },
        { id: 4, name: "aten::mm", ctrl_deps: 2, attrs: attrs(1, 0) },
      ],
    });
    const got = tablesOf(evidence);
    expect(Object.fromEntries(got.paths)).toEqual({
      "[pytorch|profiler|execution_trace|process]|user_annotation": 1,
      ["[pytorch|profiler|execution_trace|process]|user_annotation > " +
        "## forward ##|user_annotation"]: 1,
      ["[pytorch|profiler|execution_trace|process]|user_annotation > " +
        "## forward ##|user_annotation > aten::mm|cpu_op"]: 2,
    });
    expect(got.calls.get("aten::mm|cpu_op")).toEqual([2, 2]);
    expect(got.calls.get("## forward ##|user_annotation")).toEqual([1, 3]);
    expect(evidence.summary).toMatchObject({
      nodes: 4,
      operators: 3,
      roots: 1,
      max_depth: 3,
      threads: 2,
    });
  });

  test("a node whose parent is not in the trace is kept as a root and counted", async () => {
    const evidence = await extractWith(
      adapter,
      trace([node(1, "root", 1), node(5, "aten::add", 99)]),
    );
    expect(limitation(evidence, "parent_missing")).toBe(1);
    expect(evidence.summary).toMatchObject({ roots: 2, orphans: 1 });
    expect(tablesOf(evidence).paths.get("aten::add|cpu_op")).toBe(1);
  });

  test(
    "calls that share a path are one stack with their count; a chain deeper than 1024 is " +
      "refused",
    async () => {
      const loop = [
        node(1, "root", 1, { scope: 7 }),
        ...Array.from({ length: 20_000 }, (_, i) =>
          node(2 + i, i % 2 ? "aten::mm" : "aten::add", 1),
        ),
      ];
      const got = tablesOf(await extractWith(adapter, trace(loop)));
      expect(Object.fromEntries(got.paths)).toEqual({
        "root|user_annotation": 1,
        "root|user_annotation > aten::add|cpu_op": 10_000,
        "root|user_annotation > aten::mm|cpu_op": 10_000,
      });
      expect(got.calls.get("root|user_annotation")).toEqual([1, 20_001]);
      const chain = (n: number) =>
        trace(Array.from({ length: n }, (_, i) => node(i + 1, `op${i % 3}`, i === 0 ? 1 : i)));
      // 1024 levels are read; their stacks stop at MAX_STACK_FRAMES (the deeper calls' counts
      // go to the stack at that depth), and the import says so.
      const deep = await extractWith(adapter, chain(1024));
      expect(tablesOf(deep).paths.size).toBe(MAX_STACK_FRAMES);
      expect(limitation(deep, "deep_stack_paths_cut")).toBe(1);
      expect(await expectFailure(adapter, chain(1025), "ARTIFACT_TOO_LARGE")).toContain("1024");
    },
  );

  test("malformed traces fail with typed errors naming the field", async () => {
    expect(
      await expectFailure(adapter, { schema: "1.0.1", nodes: {} }, "ARTIFACT_PARSE_FAILED"),
    ).toContain("nodes");
    expect(
      await expectFailure(
        adapter,
        trace([node(1, "a", 1), node(1, "b", 1)]),
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("nodes[1].id");
    expect(
      await expectFailure(
        adapter,
        trace([node(1, "a", 2), node(2, "b", 1)]),
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("cycle");
    expect(
      await expectFailure(adapter, trace([{ id: 1, parent: 1 }]), "ARTIFACT_PARSE_FAILED"),
    ).toContain("nodes[0].name");
    expect(
      await expectFailure(adapter, trace([node(1, "a", "x" as never)]), "ARTIFACT_PARSE_FAILED"),
    ).toContain("nodes[0].parent");
    expect(
      await expectFailure(adapter, trace([node(1.5, "a", 1)]), "ARTIFACT_PARSE_FAILED"),
    ).toContain("nodes[0].id");
    expect(
      await expectFailure(
        adapter,
        trace([node(1, "a", 1, { tid: "main" })]),
        "ARTIFACT_PARSE_FAILED",
      ),
    ).toContain("nodes[0].tid");
    expect(await expectFailure(adapter, "[]", "ARTIFACT_PARSE_FAILED")).toContain("document");
    await expectFailure(adapter, trace([node(1, "a", 1), node(2, "b", 1)]), "ARTIFACT_TOO_LARGE", {
      maxEvents: 1,
    });
  });

  test("detection: the ET's own root names or its schema and node fields, not a cpuprofile", () => {
    expect(
      adapter.detect({
        head: JSON.stringify(trace([node(1, "a", 1, { op_schema: "" })])),
        displayName: "x",
      }),
    ).toBeGreaterThan(0.8);
    expect(
      adapter.detect({
        head: JSON.stringify({ nodes: [{ id: 1, callFrame: {} }], samples: [] }),
        displayName: "x",
      }),
    ).toBe(0);
  });
});
