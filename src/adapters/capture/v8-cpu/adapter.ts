/**
 * `v8-cpu`: Node's or Bun's built-in sampling CPU profiler (`--cpu-prof`), writing
 * `.cpuprofile` files into the capture's output directory. The profiles are extracted
 * by the v8-cpuprofile format adapter, the same path an imported profile takes.
 */
import { type } from "arktype";
import type { AdapterPlan, CaptureAdapter, Collected } from "../capture-adapter.ts";
import { JS_RUNTIME_ADAPTER_BASE, modernJsRuntimeOf, withRuntimeFlags } from "../v8-runtime.ts";

const DEFAULT_INTERVAL_US = 1000;

export const v8CpuCaptureAdapter: CaptureAdapter = {
  name: "v8-cpu",
  version: "1",
  description:
    "Sampling CPU profile of a Node.js or Bun workload (--cpu-prof); extracted into frames, " +
    "stacks and hotspots",
  ...JS_RUNTIME_ADAPTER_BASE,
  options: type({
    "+": "reject",
    "interval_us?": type("50 <= number.integer <= 100000").describe(
      "sampling interval in microseconds (default 1000)",
    ),
  }),
  plan(input): AdapterPlan {
    const runtime = modernJsRuntimeOf(input, "v8-cpu", "--cpu-prof-dir");
    const interval = (input.options.interval_us as number | undefined) ?? DEFAULT_INTERVAL_US;
    return {
      command: withRuntimeFlags(input, [
        "--cpu-prof",
        { output: "", prefix: "--cpu-prof-dir=" },
        `--cpu-prof-interval=${interval}`,
      ]),
      environment: {},
      postSteps: [],
      deadlineSeconds: input.timeoutSeconds,
      effectiveOptions: { runtime: runtime.name, interval_us: interval },
      producer: { name: runtime.name, version: runtime.version },
      limitations: [],
    };
  },
  collect(input): Collected {
    const profiles = input.files.filter(
      (f) => f.name.endsWith(".cpuprofile") && !f.name.includes("/"),
    );
    const extractor = input.extractors.includes("v8-cpuprofile") ? "v8-cpuprofile" : null;
    return {
      artifacts: profiles.map((f) => ({
        file: f.name,
        displayName: f.name,
        kind: "sample_profile",
        mediaType: "application/json",
        extractor,
      })),
      summary: { profiles: profiles.length },
      limitations:
        profiles.length > 0
          ? []
          : [
              {
                code: "no_profile_written",
                message:
                  `The runtime wrote no .cpuprofile (it writes one only on a normal exit; the ` +
                  `run ended as ${input.termination})`,
              },
            ],
    };
  },
};
