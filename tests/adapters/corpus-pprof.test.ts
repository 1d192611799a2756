/**
 * pprof: every corpus profile is detected and imported; the WASM wire scanner's evidence
 * equals the protobufjs path's row for row, and self values per leaf function equal an
 * independent computation over the protobufjs-decoded profile.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { Profile } from "../../src/adapters/pprof/pprof-schema.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import { corpusFiles, headOf } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";
import { extracted } from "./adapter-harness.ts";

const pprof = adapterByName("pprof")!;

function payloadOf(path: string): Uint8Array {
  const bytes = new Uint8Array(readFileSync(path));
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? Bun.gunzipSync(bytes) : bytes;
}

type Msg = Record<string, any>;

/** Per sample type: self value per leaf function name (last line of the leaf location). */
function referenceLeafSelf(bytes: Uint8Array): Map<string, Map<string, number>> {
  const p = Profile.toObject(Profile.decode(bytes), { longs: Number }) as Msg;
  const strings: string[] = p.string_table ?? [];
  const functions = new Map<number, Msg>((p.function ?? []).map((f: Msg) => [f.id, f]));
  const locations = new Map<number, Msg>((p.location ?? []).map((l: Msg) => [l.id, l]));
  const out = new Map<string, Map<string, number>>();
  (p.sample_type ?? []).forEach((t: Msg, k: number) => {
    const perName = new Map<string, number>();
    for (const s of p.sample ?? []) {
      const value = (s.value ?? [])[k] ?? 0;
      const leaf = locations.get((s.location_id ?? [])[0]);
      if (!leaf || value === 0) continue;
      const line = (leaf.line ?? [])[0];
      const fn = line ? functions.get(line.function_id) : undefined;
      const name = fn
        ? strings[fn.name] || strings[fn.system_name] || "(unknown)"
        : `0x${Number(leaf.address ?? 0).toString(16)}`;
      perName.set(name, (perName.get(name) ?? 0) + value);
    }
    out.set(strings[t.type] ?? "", perName);
  });
  return out;
}

describe("pprof corpus", () => {
  for (const file of corpusFiles("pprof")) {
    test(file.name, async () => {
      const bytes = payloadOf(file.path);
      expect(
        detectAdapter({
          head: headOf(bytes),
          headBytes: bytes.subarray(0, 65536),
          displayName: file.name,
        })?.name,
      ).toBe("pprof");
      const evidence = await extracted(pprof, {
        bytes,
        displayName: file.name,
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      const frames = new Map(rowsOf(evidence.tables.frames).map((f) => [f.frame_id, f]));
      const reference = referenceLeafSelf(bytes);
      const metricOfType: Record<string, string> = {
        cpu: "cpu_time",
        wall: "wall_time",
        samples: "samples",
        sample: "samples",
      };
      for (const [type, perName] of reference) {
        const metric = metricOfType[type];
        if (!metric) continue;
        const got = new Map<string, number>();
        for (const m of rowsOf(evidence.tables.frame_measurements)) {
          if (m.metric !== metric || Number(m.self_value) === 0) continue;
          const name = frames.get(m.frame_id)!.function as string;
          got.set(name, (got.get(name) ?? 0) + Number(m.self_value));
        }
        expect(got).toEqual(new Map([...perName].filter(([, v]) => v !== 0)));
      }
      await expectSameOutcome(pprof, bytes, { displayName: file.name, chunkSize: 8191 });
    });
  }

  test("legacy (pre-proto) pprof files are not taken for profile.proto", () => {
    for (const file of corpusFiles("pprof-legacy")) {
      const bytes = payloadOf(file.path);
      expect(
        detectAdapter({
          head: headOf(bytes),
          headBytes: bytes.subarray(0, 65536),
          displayName: file.name,
        })?.name,
      ).not.toBe("pprof");
    }
  });

  test("truncated and corrupt profiles fail with typed errors on both paths", async () => {
    const bytes = payloadOf(
      corpusFiles("pprof").find((f) => f.name.startsWith("google-pprof-report"))!.path,
    );
    for (const cut of [1, 7, bytes.length >> 1, bytes.length - 1])
      await expectSameOutcome(pprof, bytes.subarray(0, cut), { chunkSize: 97 });
    const corrupt = bytes.slice();
    corrupt[3] = 0xff;
    await expectSameOutcome(pprof, corrupt, { chunkSize: 97 });
  });
});
