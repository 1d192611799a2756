/**
 * Capture adapters are pure: given host facts they assess, given a bound workload they
 * plan, given output files they collect. These cases need no process, so states that a
 * host may not show (perf blocked by the kernel, an old hyperfine) are proven here.
 */
import { describe, expect, test } from "bun:test";
import type { AdapterPlanInput, HostFacts } from "../../src/adapters/capture/capture-adapter.ts";
import { hyperfineCaptureAdapter } from "../../src/adapters/capture/hyperfine/adapter.ts";
import { joinWords } from "../../src/adapters/capture/hyperfine/shell-words.ts";
import { splitWords } from "./split-words.ts";
import { perfCaptureAdapter } from "../../src/adapters/capture/perf/adapter.ts";
import { v8CpuCaptureAdapter } from "../../src/adapters/capture/v8-cpu/adapter.ts";
import { v8HeapCaptureAdapter } from "../../src/adapters/capture/v8-heap/adapter.ts";
import type { ResolvedExecutable } from "../../src/domain/capture.ts";

const exe = (path: string, requested = path.split("/").pop()!): ResolvedExecutable => ({
  requested,
  path,
  canonical_path: path,
  trust: "host_tool",
  sha256: `sha256:${"0".repeat(64)}`,
  size: 1,
  identity: { dev: 1, ino: 1, size: 1, mtime_ns: "0", ctime_ns: "0" },
});
const facts = (over: Partial<HostFacts> = {}): HostFacts => ({
  tools: {},
  probes: {},
  sysctl: {},
  euid: 1000,
  ...over,
});
const planInput = (over: Partial<AdapterPlanInput> = {}): AdapterPlanInput => ({
  workloadArgv: ["node", "bench.js", "--n=5"],
  workloadExecutable: exe("/usr/bin/node", "node"),
  workloadVersion: "v20.20.2",
  tools: {},
  toolVersions: {},
  options: {},
  timeoutSeconds: 30,
  ...over,
});

describe("shell-words quoting for hyperfine --shell=none", () => {
  test(
    "any argv splits back exactly: metacharacters, quotes, spaces and newlines stay " + "bytes",
    () => {
      const hostile = [
        "$(touch pwned)",
        "; rm -rf /",
        "*",
        "it's",
        "a b",
        "'",
        "\\",
        "`id`",
        "line\nbreak",
        "",
        "{x}",
        "--flag=$HOME",
      ];
      expect(splitWords(joinWords(hostile))).toEqual(hostile);
      for (let i = 0; i < 200; i++) {
        const argv = Array.from({ length: 1 + (i % 5) }, (_, k) =>
          String.fromCharCode(
            ...Array.from(
              { length: (i * 7 + k) % 12 },
              (_, j) => 32 + ((i * 31 + j * 17 + k) % 95),
            ),
          ),
        );
        expect(splitWords(joinWords(argv))).toEqual(argv);
      }
    },
  );
});

describe("capture adapter planning", () => {
  test("v8-cpu puts its flags right after the runtime and before the script", () => {
    const plan = v8CpuCaptureAdapter.plan(planInput({ options: { interval_us: 250 } }));
    expect(plan.command).toEqual([
      "/usr/bin/node",
      "--cpu-prof",
      { output: "", prefix: "--cpu-prof-dir=" },
      "--cpu-prof-interval=250",
      "bench.js",
      "--n=5",
    ]);
    expect(plan.producer).toEqual({ name: "node", version: "20.20.2" });
  });

  test(
    "v8 adapters refuse an executable that is not node or bun, without needing to run " + "it",
    () => {
      const python = exe("/usr/bin/python3");
      expect(v8CpuCaptureAdapter.recognizesExecutable!(python)).toBe(false);
      expect(() =>
        v8HeapCaptureAdapter.plan(planInput({ workloadExecutable: python, workloadVersion: null })),
      ).toThrow(expect.objectContaining({ code: "CAPABILITY_UNAVAILABLE" }));
    },
  );

  test("hyperfine runs the workload without a shell and allows every run its timeout", () => {
    const plan = hyperfineCaptureAdapter.plan(
      planInput({
        tools: { hyperfine: exe("/usr/bin/hyperfine") },
        workloadArgv: ["node", "a b.js", "$(id)"],
        options: { runs: 5, warmup: 2 },
      }),
    );
    expect(plan.command).toContain("--shell=none");
    expect(splitWords(plan.command.at(-1) as string)).toEqual(["/usr/bin/node", "a b.js", "$(id)"]);
    expect(plan.deadlineSeconds).toBe(30 * 7 + 10);
  });

  test("perf plans record + script and bounds its sampling options", () => {
    const plan = perfCaptureAdapter.plan(planInput({ tools: { perf: exe("/usr/bin/perf") } }));
    expect(plan.command.slice(0, 6)).toEqual([
      "/usr/bin/perf",
      "record",
      "-q",
      "-F",
      "999",
      "--call-graph",
    ]);
    expect(plan.postSteps[0]).toMatchObject({
      id: "script",
      tool: "perf",
      stdoutTo: "perf.script.txt",
    });
    expect(perfCaptureAdapter.options({ frequency_hz: 100000 })).toBeInstanceOf(Array);
  });

  test(
    "perf runs node with --perf-basic-prof, declared; switched off or under bun it says JIT " +
      "frames stay unnamed",
    () => {
      const tools = { perf: exe("/usr/bin/perf") };
      const node = perfCaptureAdapter.plan(planInput({ tools }));
      expect(node.command.slice(-4)).toEqual([
        "/usr/bin/node",
        "--perf-basic-prof",
        "bench.js",
        "--n=5",
      ]);
      expect(node.effectiveOptions.perf_basic_prof).toBe(true);
      expect(node.limitations.map((l) => l.code)).toEqual(["perf_basic_prof"]);
      const off = perfCaptureAdapter.plan(
        planInput({ tools, options: { perf_basic_prof: false } }),
      );
      expect(off.command).not.toContain("--perf-basic-prof");
      expect(off.limitations.map((l) => l.code)).toEqual(["unnamed_jit_frames"]);
      const bun = perfCaptureAdapter.plan(
        planInput({
          tools,
          workloadArgv: ["bun", "x.js"],
          workloadExecutable: exe("/usr/bin/bun", "bun"),
        }),
      );
      expect(bun.command).not.toContain("--perf-basic-prof");
      expect(bun.limitations.map((l) => l.code)).toEqual(["unnamed_jit_frames"]);
      const native = perfCaptureAdapter.plan(
        planInput({ tools, workloadArgv: ["./hot"], workloadExecutable: exe("/p/hot", "./hot") }),
      );
      expect(native.command.slice(-1)).toEqual(["/p/hot"]);
      expect(native.effectiveOptions.perf_basic_prof).toBeNull();
      expect(native.limitations).toEqual([]);
    },
  );
});

describe("capture adapter assessment", () => {
  const perf = { executable: exe("/usr/bin/perf"), version: "perf version 6.1" };
  test("perf is permission_required when the kernel refuses perf_event_open", () => {
    const blocked = perfCaptureAdapter.assess(
      facts({
        tools: { perf },
        sysctl: { "kernel/perf_event_paranoid": "3" },
        probes: {
          record: {
            exitCode: 255,
            timedOut: false,
            stdout: "",
            stderr:
              "Error:\nAccess to performance monitoring and observability operations is " +
              "limited.\nConsider adjusting /proc/sys/kernel/perf_event_paranoid setting",
          },
        },
      }),
    );
    expect(blocked.status).toBe("permission_required");
    expect(blocked.reason).toContain("perf_event_paranoid=3");
    expect(
      perfCaptureAdapter.assess(facts({ tools: { perf: { absent: "not found" } } })).status,
    ).toBe("absent");
    expect(
      perfCaptureAdapter.assess(
        facts({
          tools: { perf },
          probes: { record: { exitCode: 0, timedOut: false, stdout: "", stderr: "" } },
        }),
      ).status,
    ).toBe("available");
  });

  test(
    "hyperfine older than 1.13 is incompatible: it would run the workload through a " + "shell",
    () => {
      const old = hyperfineCaptureAdapter.assess(
        facts({
          tools: {
            hyperfine: { executable: exe("/usr/bin/hyperfine"), version: "hyperfine 1.12.0" },
          },
        }),
      );
      expect(old).toMatchObject({ status: "incompatible" });
    },
  );

  test("a Bun heap 'profile' is recognised as a heap snapshot and kept native", () => {
    const collected = v8HeapCaptureAdapter.collect({
      files: [{ name: "Heap.1.heapprofile", size: 100 }],
      read: () => new TextEncoder().encode('{"snapshot":{"meta":{}}}'),
      termination: "exited",
      postSteps: {},
      producer: { name: "bun", version: "1.4.4" },
      extractors: ["v8-heapprofile"],
      tables: [],
    });
    expect(collected.artifacts).toEqual([
      {
        file: "Heap.1.heapprofile",
        displayName: "Heap.1.heapsnapshot",
        kind: "memory_profile",
        mediaType: "application/json",
        extractor: null,
      },
    ]);
    expect(collected.limitations.map((l) => l.code)).toEqual([
      "heap_snapshot_not_sampling_profile",
    ]);
  });
});
