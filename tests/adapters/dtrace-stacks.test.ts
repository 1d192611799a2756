/**
 * DTrace stack aggregations: the corpus file (FlameGraph's example, external lane) is
 * detected and imports, its counts per leaf function equal an independent reading written
 * here and FlameGraph's own stackcollapse.pl (reference/stackcollapse-dtrace.json); the
 * hand-written fixture covers each rule; bad input fails typed.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { dtraceStacksAdapter } from "../../src/adapters/dtrace-stacks/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { REPO } from "../helpers.ts";
import { expectFailure, extractWith, limitation, extracted } from "./adapter-harness.ts";
import { corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { chunked } from "./stream-harness.ts";

const STACKCOLLAPSE = JSON.parse(
  readFileSync(join(import.meta.dir, "reference", "stackcollapse-dtrace.json"), "utf8"),
).files;
const FIXTURE = join(REPO, "fixtures", "dtrace-stacks", "ustack-hand-written.txt");
const extract = async (bytes: Uint8Array) =>
  await extracted(dtraceStacksAdapter, { bytes, displayName: "t", limits: DEFAULT_ADAPTER_LIMITS });

/** Counts per leaf function: the first frame line of each block, module and offset removed. */
function referenceSelf(text: string): Map<string, number> {
  const out = new Map<string, number>();
  let leaf: string | null = null;
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t === "") leaf = null;
    else if (/^\d+$/.test(t) && /^\s/.test(line)) {
      if (leaf !== null) out.set(leaf, (out.get(leaf) ?? 0) + Number(t));
      leaf = null;
    } else if (leaf === null && /^\s/.test(line) && !/^\d+\s+\d+\s/.test(t))
      leaf = t.replace(/^[^`]*`/, "").replace(/\+0x[0-9a-f]+$/i, "");
  }
  for (const [k, v] of out) if (v === 0) out.delete(k);
  return out;
}

function selfByName(evidence: NormalizedEvidence): Map<string, number> {
  const names = new Map(
    rowsOf(evidence.tables.frames).map((f) => [f.frame_id as string, f.function as string]),
  );
  const out = new Map<string, number>();
  for (const m of rowsOf(evidence.tables.frame_measurements)) {
    if (Number(m.self_value) === 0) continue;
    const name = names.get(m.frame_id as string)!;
    out.set(name, (out.get(name) ?? 0) + Number(m.self_value));
  }
  return out;
}
const sorted = (m: Map<string, number>) =>
  [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

describe("dtrace-stacks", () => {
  for (const file of [
    ...corpusFiles("dtrace-stacks"),
    { name: "ustack-hand-written.txt", path: FIXTURE },
  ]) {
    test(
      `${file.name}: detected; counts per leaf function equal an independent reading (and ` +
        `stackcollapse.pl's)`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(detectAdapter({ head: headOf(bytes), displayName: "upload" })?.name).toBe(
          "dtrace-stacks",
        );
        const evidence = await extract(bytes);
        const self = selfByName(evidence);
        expect(sorted(self)).toEqual(sorted(referenceSelf(new TextDecoder().decode(bytes))));
        const collapsed = STACKCOLLAPSE[file.name];
        if (collapsed !== undefined) {
          expect(sorted(self)).toEqual(
            sorted(new Map(Object.entries(collapsed.self_by_function as Record<string, number>))),
          );
          expect([...self.values()].reduce((a, b) => a + b, 0)).toBe(collapsed.total);
        }
        const streamed = await dtraceStacksAdapter.extractStream!({
          chunks: chunked(bytes, 61),
          displayName: "t",
          limits: DEFAULT_ADAPTER_LIMITS,
          sink: { writeBatch: async () => {} },
        });
        expect(rowsOf(streamed.tables.frame_measurements!)).toEqual(
          rowsOf(evidence.tables.frame_measurements),
        );
      },
    );
  }

  test(
    "rules: frames keep their module, lose their offset; stacks are outermost first; addresses " +
      "are unsymbolized",
    async () => {
      const evidence = await extract(new Uint8Array(readFileSync(FIXTURE)));
      const frames = rowsOf(evidence.tables.frames);
      expect(frames.find((f) => f.function === "grow")).toMatchObject({
        module: "app",
        language: "native",
        symbolization: "complete",
      });
      expect(
        frames
          .filter((f) => f.symbolization === "absent")
          .map((f) => f.function)
          .sort(),
      ).toEqual(["0x10a3f", "0x7fff5fc01000"]);
      const names = new Map(frames.map((f) => [f.frame_id, f.function]));
      const stacks = rowsOf(evidence.tables.stacks).map((s) => [
        (s.frame_ids as string[]).map((id) => names.get(id)).join(";"),
        Number(s.sample_count),
      ]);
      expect(stacks).toContainEqual(["start;main;grow;malloc", 12]);
      expect(evidence.summary).toMatchObject({ stacks: 4, header_lines: 2 });
      expect(limitation(evidence, "missing_symbols")).toBe(2);
    },
  );

  test("a stack without its count, stray lines, and input with no stacks", async () => {
    const evidence = await extractWith(
      dtraceStacksAdapter,
      "\n   a`f+0x1\n   a`main\n   3\n\n   a`g\n\nnot indented\n   a`h\n",
    );
    expect(selfByName(evidence)).toEqual(new Map([["f", 3]]));
    expect(limitation(evidence, "stacks_without_count")).toBe(2);
    expect(limitation(evidence, "invalid_lines")).toBe(1);
    expect(
      await expectFailure(dtraceStacksAdapter, "hello\nworld\n", "ARTIFACT_PARSE_FAILED"),
    ).toContain("no stack with a count");
    // A CR or line separator inside a frame (only LF ends a line) is part of its name.
    expect(
      selfByName(await extractWith(dtraceStacksAdapter, "   a`f\rg+0x1\n   a`h\u2028i\n   2\n")),
    ).toEqual(new Map([["f\rg", 2]]));
    expect(
      await expectFailure(
        dtraceStacksAdapter,
        "   a`f\n   1\n   a`g\n   2\n",
        "ARTIFACT_TOO_LARGE",
        {
          maxEvents: 1,
        },
      ),
    ).toContain("stacks");
  });
});
