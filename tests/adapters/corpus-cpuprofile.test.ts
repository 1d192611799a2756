/**
 * Every cpuprofile in the shared corpus: detected as v8-cpuprofile, extracted, and its
 * per-function self time equal to an independent computation from the raw samples.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import { corpusFiles, headOf, loadPayload, parseLoose } from "./corpus-files.ts";
import { expectTableInvariants, totalsByFunction } from "./evidence-checks.ts";
import { rawProfileOf, referenceCpuSelf } from "./reference-cpuprofile.ts";
import { extracted } from "./adapter-harness.ts";

describe("cpuprofile corpus", () => {
  for (const file of corpusFiles("cpuprofile")) {
    test(file.name, async () => {
      const bytes = loadPayload(file.path);
      const adapter = detectAdapter({ head: headOf(bytes), displayName: file.name });
      expect(adapter?.name).toBe("v8-cpuprofile");
      const evidence = await extracted(adapter!, {
        bytes,
        displayName: file.name,
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      expect(evidence.adapter).toBe("v8-cpuprofile");
      expectTableInvariants(evidence);

      const raw = rawProfileOf(parseLoose(bytes) as Record<string, unknown>);
      const reference = referenceCpuSelf(raw);
      const all = totalsByFunction(evidence, "cpu_time");
      const got = new Map([...all].filter(([, v]) => v.selfSamples > 0));
      // Same functions, same sample counts, same self time (≤ 1 ns rounding per sample).
      expect([...got.keys()].sort()).toEqual([...reference.keys()].sort());
      for (const [key, ref] of reference) {
        const mine = got.get(key)!;
        expect(mine.selfSamples).toBe(ref.samples);
        expect(Math.abs(mine.selfNs - ref.selfUs * 1000)).toBeLessThanOrEqual(ref.samples);
      }
      const top = (m: Map<string, number>) =>
        [...m]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, 5)
          .map(([k]) => k);
      expect(top(new Map([...got].map(([k, v]) => [k, v.selfNs])))).toEqual(
        top(new Map([...reference].map(([k, v]) => [k, Math.round(v.selfUs * 1000)]))),
      );

      const totalSamples = [...got.values()].reduce((a, v) => a + v.selfSamples, 0);
      expect(totalSamples).toBe(raw.samples.length);
      const totalNs = [...got.values()].reduce((a, v) => a + v.selfNs, 0);
      expect(totalNs).toBe(evidence.summary.total_cpu_time_ns as number);
    });
  }
});
