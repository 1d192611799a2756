/**
 * V8 heap profiles: every corpus file is detected and imported; self bytes per function
 * equal an independent walk of the raw tree, and the WASM stream path equals the
 * JSON.parse path row for row.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import { corpusFiles, headOf, loadPayload, parseLoose } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { payload, extracted } from "./adapter-harness.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";

interface RawNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children?: RawNode[];
}

/** Self bytes per "function @ url", excluding the (root) container. */
function referenceSelfBytes(head: RawNode): Map<string, number> {
  const out = new Map<string, number>();
  const pending = [head];
  while (pending.length > 0) {
    const node = pending.pop()!;
    pending.push(...(node.children ?? []));
    if (node === head && node.callFrame.functionName === "(root)") continue;
    if (node.selfSize === 0) continue;
    const key = `${node.callFrame.functionName || "(anonymous)"} @ ${node.callFrame.url || ""}`;
    out.set(key, (out.get(key) ?? 0) + node.selfSize);
  }
  return out;
}

const heap = adapterByName("v8-heapprofile")!;

describe("heapprofile corpus", () => {
  for (const file of corpusFiles("heapprofile")) {
    test(file.name, async () => {
      const bytes = loadPayload(file.path);
      expect(detectAdapter({ head: headOf(bytes), displayName: file.name })?.name).toBe(
        "v8-heapprofile",
      );
      const evidence = await extracted(heap, {
        bytes,
        displayName: file.name,
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      const frames = new Map(rowsOf(evidence.tables.frames).map((f) => [f.frame_id, f]));
      const got = new Map<string, number>();
      for (const m of rowsOf(evidence.tables.frame_measurements)) {
        expect(m.metric).toBe("inuse_space");
        expect(m.unit).toBe("bytes");
        const f = frames.get(m.frame_id)!;
        const key = `${f.function} @ ${f.file ?? ""}`;
        if (Number(m.self_value) > 0) got.set(key, (got.get(key) ?? 0) + Number(m.self_value));
      }
      expect(got).toEqual(referenceSelfBytes((parseLoose(bytes) as { head: RawNode }).head));
      await expectSameOutcome(heap, bytes, { displayName: file.name, chunkSize: 701 });
    });
  }
  test("malformed heap profiles fail alike on both paths", async () => {
    for (const value of [
      {},
      { head: 1 },
      { head: { callFrame: {}, selfSize: -1 } },
      { head: { callFrame: 1, selfSize: 0 } },
      { head: { callFrame: {}, selfSize: 1, children: {} } },
      { head: { callFrame: {}, selfSize: 1 }, samples: 3 },
      "[]",
    ]) {
      await expectSameOutcome(heap, payload(value), { chunkSize: 7 });
    }
  });
});
