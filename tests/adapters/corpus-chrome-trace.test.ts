/**
 * Every Chrome trace in the shared corpus: detected as chrome-trace, extracted, and its
 * per-name self wall time equal to an independent sweep over the raw events; embedded
 * V8 samples equal to an independent per-function computation.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import { corpusFile, corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { expectTableInvariants, totalsByFunction, traceEventRows } from "./evidence-checks.ts";
import {
  embeddedProfiles,
  referenceCpuSelf,
  type ReferenceCpuSelf,
} from "./reference-cpuprofile.ts";
import { asyncTimeline, referenceSelfByName, referenceThreadNs } from "./reference-trace.ts";
import { extracted } from "./adapter-harness.ts";

/** The raw events, closing a truncated array the way the format allows. */
function rawEvents(bytes: Uint8Array): Record<string, unknown>[] {
  const text = new TextDecoder().decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = JSON.parse(`${text.trim().replace(/,$/, "")}]`);
  }
  return (
    Array.isArray(value) ? value : (value as { traceEvents: unknown[] }).traceEvents
  ) as Record<string, unknown>[];
}

function topByValue(values: Map<string, number>, n: number): number[] {
  return [...values.values()].sort((a, b) => b - a).slice(0, n);
}

describe("chrome-trace corpus", () => {
  for (const file of corpusFiles("chrome-trace")) {
    test(file.name, async () => {
      const bytes = loadPayload(file.path);
      const adapter = detectAdapter({ head: headOf(bytes), displayName: file.name });
      expect(adapter?.name).toBe("chrome-trace");
      const evidence = await extracted(adapter!, {
        bytes,
        displayName: file.name,
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      expectTableInvariants(evidence);
      const events = rawEvents(bytes);

      // Rows: every timed event except metadata, E and an async e with an id (folded into their B
      // or b).
      const folded = (e: (typeof events)[number]) =>
        e.ph === "E" || (e.ph === "e" && asyncTimeline(e) !== null);
      const expectedRows = events.filter(
        (e) => e.ph !== "M" && !folded(e) && Number.isFinite(Number(e.ts)),
      ).length;
      expect(evidence.tables.trace_events.rowCount).toBe(expectedRows);

      // Thread time per slice: tdur of an X, tts of its E less tts of its B.
      const threadNs = referenceThreadNs(events);
      const timedRows = traceEventRows(evidence).filter((r) => r.dur_ns !== null);
      expect(timedRows.length).toBe(threadNs.size);
      for (const r of timedRows)
        expect([
          Number(r.event_index),
          r.thread_dur_ns === null ? null : Number(r.thread_dur_ns),
        ]).toEqual([Number(r.event_index), threadNs.get(Number(r.event_index))!]);

      // Wall time per name against the sweep.
      const reference = referenceSelfByName(events);
      const got = totalsByFunction(evidence, "wall_time");
      expect([...got.keys()].sort()).toEqual([...reference.keys()].sort());
      let tolerance = 0;
      for (const [name, ref] of reference) {
        const mine = got.get(name)!;
        const slack = ref.segments + ref.slices; // ≤ 1 ns of rounding per boundary
        tolerance += slack;
        expect(mine.selfSamples).toBe(ref.slices);
        expect(Math.abs(mine.selfNs - ref.selfUs * 1000)).toBeLessThanOrEqual(slack);
      }
      const mineTop = topByValue(new Map([...got].map(([k, v]) => [k, v.selfNs])), 5);
      const refTop = topByValue(new Map([...reference].map(([k, v]) => [k, v.selfUs * 1000])), 5);
      mineTop.forEach((value, i) =>
        expect(Math.abs(value - refTop[i]!)).toBeLessThanOrEqual(tolerance),
      );
      const selfTotal = [...got.values()].reduce((a, v) => a + v.selfNs, 0);
      const refTotal = [...reference.values()].reduce((a, v) => a + v.selfUs * 1000, 0);
      expect(Math.abs(selfTotal - refTotal)).toBeLessThanOrEqual(tolerance);

      // Sampled CPU time of embedded V8 profiles, summed over profiles.
      const cpuReference = new Map<string, ReferenceCpuSelf>();
      for (const profile of embeddedProfiles(events)) {
        for (const [key, value] of referenceCpuSelf(profile)) {
          const entry = cpuReference.get(key) ?? { selfUs: 0, samples: 0 };
          entry.selfUs += value.selfUs;
          entry.samples += value.samples;
          cpuReference.set(key, entry);
        }
      }
      const cpu = new Map(
        [...totalsByFunction(evidence, "cpu_time")].filter(([, v]) => v.selfSamples > 0),
      );
      expect([...cpu.keys()].sort()).toEqual([...cpuReference.keys()].sort());
      for (const [key, ref] of cpuReference) {
        expect(cpu.get(key)!.selfSamples).toBe(ref.samples);
        expect(Math.abs(cpu.get(key)!.selfNs - ref.selfUs * 1000)).toBeLessThanOrEqual(ref.samples);
      }
      expect(evidence.summary.cpu_samples).toBe(
        [...cpuReference.values()].reduce((a, v) => a + v.samples, 0),
      );

      // Slice rows (X and B, with a duration) are exactly the reference's slices.
      const sliceRows = traceEventRows(evidence).filter((r) => r.dur_ns !== null);
      expect(sliceRows.length).toBe([...reference.values()].reduce((a, v) => a + v.slices, 0));
    });
  }

  test("special corpus files report what is special about them", async () => {
    const extract = async (name: string) =>
      await loadAndExtract(corpusFile("chrome-trace", name).path, name);
    const codes = async (name: string) =>
      new Map((await extract(name)).limitations.map((l) => [l.code, l.count ?? 1]));
    expect(
      (await codes("speedscope-fixture-partial-trailing-comma.json")).has(
        "truncated_array_repaired",
      ),
    ).toBe(true);
    expect((await codes("speedscope-fixture-too-many-end-events.json")).get("unmatched_end")).toBe(
      2,
    );
    expect(
      (await codes("local-chromium-headless-156-startup-trace.json.gz")).get("unmatched_begin"),
    ).toBeGreaterThan(0);
    expect((await codes("speedscope-chrome141-no-arg-data.json")).has("no_slices")).toBe(true);
    expect(
      (await codes("speedscope-fixture-multi-thread-with-samples.json")).get(
        "stack_samples_not_imported",
      ),
    ).toBe(8);
    expect((await extract("hta-kineto-cpu-only-rank34.pt.trace.json.gz")).producer).toBe(
      "torch.profiler",
    );
  });
});

async function loadAndExtract(path: string, name: string) {
  const bytes = loadPayload(path);
  return await extracted(detectAdapter({ head: headOf(bytes), displayName: name })!, {
    bytes,
    displayName: name,
    limits: DEFAULT_ADAPTER_LIMITS,
  });
}
