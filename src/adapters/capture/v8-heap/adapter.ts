/**
 * `v8-heap`: Node's sampling heap profiler (`--heap-prof`, a `.heapprofile` of sampled
 * allocation stacks). Bun accepts the same flag but writes a heap *snapshot* (an object
 * graph at exit) under a `.heapprofile` name; the file is inspected and labelled for
 * what it is. A sampling profile is extracted by the v8-heapprofile format adapter when
 * it is installed; a snapshot is kept as a native artifact only.
 */
import { type } from "arktype";
import type { Limitation } from "../../../domain/evidence-status.ts";
import type { AdapterPlan, CaptureAdapter, Collected } from "../capture-adapter.ts";
import { JS_RUNTIME_ADAPTER_BASE, modernJsRuntimeOf, withRuntimeFlags } from "../v8-runtime.ts";

// Node's default (512 KiB) leaves short workloads with an empty profile; 4 KiB samples them.
const DEFAULT_INTERVAL_BYTES = 4096;

export const v8HeapCaptureAdapter: CaptureAdapter = {
  name: "v8-heap",
  version: "1",
  description:
    "Sampling heap profile of a Node.js workload (--heap-prof), extracted as inuse_space " +
    "frames; Bun writes a heap snapshot instead, kept native",
  ...JS_RUNTIME_ADAPTER_BASE,
  options: type({
    "+": "reject",
    "interval_bytes?": type("512 <= number.integer <= 67108864").describe(
      "average sampling interval in bytes allocated (default 4096)",
    ),
  }),
  plan(input): AdapterPlan {
    const runtime = modernJsRuntimeOf(input, "v8-heap", "--heap-prof");
    const interval = (input.options.interval_bytes as number | undefined) ?? DEFAULT_INTERVAL_BYTES;
    const limitations: Limitation[] =
      runtime.name === "bun"
        ? [
            {
              code: "bun_heap_snapshot",
              message:
                "Bun's --heap-prof writes a heap snapshot (objects alive at exit), not a " +
                "sampling profile of allocations",
            },
          ]
        : [];
    return {
      command: withRuntimeFlags(input, [
        "--heap-prof",
        { output: "", prefix: "--heap-prof-dir=" },
        `--heap-prof-interval=${interval}`,
      ]),
      environment: {},
      postSteps: [],
      deadlineSeconds: input.timeoutSeconds,
      effectiveOptions: { runtime: runtime.name, interval_bytes: interval },
      producer: { name: runtime.name, version: runtime.version },
      limitations,
    };
  },
  collect(input): Collected {
    const files = input.files.filter(
      (f) => f.name.endsWith(".heapprofile") && !f.name.includes("/"),
    );
    const extractor = input.extractors.includes("v8-heapprofile") ? "v8-heapprofile" : null;
    const limitations: Limitation[] = [];
    let snapshots = 0;
    const artifacts = files.map((f) => {
      const head = new TextDecoder().decode(input.read(f.name, 256)).replace(/\s+/g, "");
      // Bun names its heap snapshot `.heapprofile`; only the content says what it is.
      if (head.startsWith('{"snapshot"')) {
        snapshots += 1;
        return {
          file: f.name,
          displayName: f.name.replace(/\.heapprofile$/, ".heapsnapshot"),
          kind: "memory_profile",
          mediaType: "application/json",
          extractor: null,
        };
      }
      return {
        file: f.name,
        displayName: f.name,
        kind: "memory_profile",
        mediaType: "application/json",
        extractor,
      };
    });
    if (snapshots > 0) {
      limitations.push({
        code: "heap_snapshot_not_sampling_profile",
        message:
          `${snapshots} file(s) are heap snapshots (objects alive at exit), not sampling heap ` +
          `profiles; kept as native artifacts, no snapshot extractor exists`,
      });
    }
    if (files.length > snapshots && !extractor)
      limitations.push({
        code: "no_heap_extractor",
        message:
          "The heap profile is kept as a native artifact; no heap profile extractor is installed",
      });
    if (files.length === 0)
      limitations.push({
        code: "no_profile_written",
        message: `The runtime wrote no heap profile (the run ended as ${input.termination})`,
      });
    return { artifacts, summary: { profiles: files.length - snapshots, snapshots }, limitations };
  },
};
