/** Detection picks the right adapter from the head alone, and claims nothing else in the corpus. */
import { describe, expect, test } from "bun:test";
import { ADAPTERS, adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import { corpusFiles, corpusFormats, headOf, loadPayload } from "./corpus-files.ts";

const OWN_FORMATS: Record<string, string> = {
  cpuprofile: "v8-cpuprofile",
  "chrome-trace": "chrome-trace",
  hyperfine: "hyperfine",
  pyperf: "pyperf",
  gbench: "gbench",
  "pytest-benchmark": "pytest-benchmark",
  heapprofile: "v8-heapprofile",
  "otlp-json": "otlp-json",
  // Binary CPU files are recognised from the decoded head too: their header bytes are all below
  // 0x80.
  "pprof-legacy": "pprof-legacy",
  "perf-script": "perf-script",
  "collapsed-stacks": "collapsed-stacks",
  speedscope: "speedscope",
  callgrind: "callgrind",
  gecko: "gecko",
  "fxprofiler-processed": "gecko",
  massif: "massif",
  dhat: "dhat",
  "dtrace-stacks": "dtrace-stacks",
  "pytest-reportlog": "pytest-reportlog",
  "junit-xml": "junit-xml",
  "coverage-py": "coverage-py",
  "coverage-py-json": "coverage-json",
  "coverage-xml": "cobertura-xml",
  nvbench: "nvbench",
  "pytorch-et": "pytorch-et",
  "nsys-sqlite": "nsys-sqlite",
};
/**
 * Corpus files outside OWN_FORMATS and the adapter that owns each: simpleperf writes text
 * (perf script text, tab-separated) and protobuf, so its folder holds two formats.
 */
const OWNED_ELSEWHERE: Record<string, string> = {
  "simpleperf/fxprofiler-simple-perf.txt.gz": "perf-script",
  "simpleperf/fxprofiler-simpleperf-cpu-clock.trace.gz": "simpleperf-proto",
};

describe("registry", () => {
  test("adapters have unique names and can be found by name", () => {
    expect(ADAPTERS.map((a) => a.name).sort()).toEqual([
      "benchmark-samples",
      "callgrind",
      "chrome-trace",
      "cobertura-xml",
      "collapsed-stacks",
      "coverage-json",
      "coverage-py",
      "dhat",
      "dtrace-stacks",
      "gbench",
      "gecko",
      "hyperfine",
      "junit-xml",
      "massif",
      "nsys-sqlite",
      "nsys-stats-summary-csv",
      "nsys-stats-trace-csv",
      "nvbench",
      "nvbench-samples",
      "otlp-json",
      "otlp-protobuf",
      "perf-script",
      "perfetto",
      "pprof",
      "pprof-legacy",
      "pyperf",
      "pytest-benchmark",
      "pytest-reportlog",
      "pytorch-et",
      "simpleperf-proto",
      "speedscope",
      "v8-cpuprofile",
      "v8-heapprofile",
    ]);
    expect(adapterByName("v8-cpuprofile")).toMatchObject({
      artifactKind: "sample_profile",
      mediaType: "application/json",
    });
    expect(adapterByName("chrome-trace")).toMatchObject({ artifactKind: "execution_trace" });
    expect(adapterByName("perf-script")).toMatchObject({
      artifactKind: "sample_profile",
      mediaType: "text/x-perf-script",
    });
    expect(adapterByName("perf-data")).toBeNull();
  });

  for (const [format, adapter] of Object.entries(OWN_FORMATS)) {
    test(`every ${format} corpus file is detected as ${adapter}, from its first 64 KiB`, () => {
      // A README beside a fixture describes it; it is not an artifact.
      for (const file of corpusFiles(format).filter((f) => !f.name.endsWith(".README.md"))) {
        expect([
          file.name,
          detectAdapter({ head: headOf(loadPayload(file.path)), displayName: file.name })?.name,
        ]).toEqual([file.name, adapter]);
        // The display name helps but is not needed.
        expect(
          detectAdapter({ head: headOf(loadPayload(file.path)), displayName: "upload" })?.name,
        ).toBe(adapter);
      }
    });
  }

  test("no other corpus format is claimed by these adapters", () => {
    const claimed: string[] = [];
    for (const format of corpusFormats()) {
      if (format in OWN_FORMATS) continue;
      for (const file of corpusFiles(format)) {
        const adapter = detectAdapter({
          head: headOf(loadPayload(file.path)),
          displayName: file.name,
        });
        if (adapter !== null && OWNED_ELSEWHERE[`${format}/${file.name}`] !== adapter.name)
          claimed.push(`${format}/${file.name} → ${adapter.name}`);
      }
    }
    expect(claimed).toEqual([]);
  });

  test("heads that are not these formats", () => {
    const detect = (head: string) => detectAdapter({ head, displayName: "x.json" });
    expect(detect("")).toBeNull();
    expect(detect("not json")).toBeNull();
    expect(
      detect(
        '{"head":{"callFrame":{"functionName":"(root)"},"selfSize":0,"children":[]},"samples":[]}',
      )?.name,
    ).toBe("v8-heapprofile"); // not a cpuprofile
    expect(
      detect(
        '{"schema":"1.0.1","nodes":[{"name":"[pytorch|profiler|execution_trace|process]","id":1}]}',
      )?.name,
    ).toBe("pytorch-et"); // no longer unknown: it has its adapter
    expect(detect("[1,2,3]")).toBeNull();
  });

  test("heads that are", () => {
    const detect = (head: string) => detectAdapter({ head, displayName: "upload" })?.name;
    expect(detect('{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"')).toBe("v8-cpuprofile");
    expect(
      detect('{"head":{"functionName":"(root)","url":"","lineNumber":0,"hitCount":0,"children":['),
    ).toBe("v8-cpuprofile");
    expect(detect('  [ {"pid":1,"tid":1,"ph":"X","ts":0')).toBe("chrome-trace");
    expect(detect('{"traceEvents":[{"ph":"B"')).toBe("chrome-trace");
    // A DevTools trace whose events carry a CPU profile is still a trace.
    expect(
      detect(
        '{"metadata":{},"traceEvents":[{"name":"CpuProfile","ph":"I",' +
          '"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{}}]',
      ),
    ).toBe("chrome-trace");
  });

  test(
    "every adapter has exactly one pipeline: " + "streaming, or whole for small-by-nature formats",
    () => {
      const whole: string[] = [];
      for (const adapter of ADAPTERS) {
        const streams = typeof adapter.extractStream === "function";
        const extracts = typeof adapter.extract === "function";
        expect({ name: adapter.name, pipelines: Number(streams) + Number(extracts) }).toEqual({
          name: adapter.name,
          pipelines: 1,
        });
        if (!streams) {
          expect({ name: adapter.name, pieceScan: adapter.pieceScan }).toEqual({
            name: adapter.name,
            pieceScan: undefined,
          });
          whole.push(adapter.name);
        }
      }
      // Benchmark results, test reports, coverage reports, legacy pprof and operator trees: files
      // whose size does not grow with how long the workload ran.
      expect(whole.sort()).toEqual([
        "benchmark-samples",
        "cobertura-xml",
        "coverage-json",
        "gbench",
        "hyperfine",
        "junit-xml",
        "nvbench",
        "nvbench-samples",
        "pprof-legacy",
        "pyperf",
        "pytest-benchmark",
        "pytorch-et",
      ]);
    },
  );
});
