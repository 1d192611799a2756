/**
 * The single-file binary (`make compile`) imports as the source CLI does: its parse worker is the
 * binary itself (`__parse-worker -`, its request on stdin), and the WASM modules embedded in it
 * (the JSON and protobuf scanners, parquet-wasm) load from the binary's own file system. Built
 * here the way the Makefile builds it; [heavy]: the build takes a few seconds.
 */
import { afterAll, describe, expect } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { CORPUS, heavyTest, REPO, SAMPLES, tempDir } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

async function run(binary: string, args: string[], cwd: string) {
  const child = Bun.spawn([binary, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code: await child.exited, stdout, stderr };
}

describe("the compiled binary", () => {
  heavyTest(
    "imports JSON and protobuf inputs through its own parse worker",
    async () => {
      const binary = join(dir.path, "flameox");
      const build = Bun.spawnSync(
        [
          process.execPath,
          "build",
          "--compile",
          "--bytecode",
          "--format",
          "esm",
          "--outfile",
          binary,
          join(REPO, "src", "cli", "main.ts"),
        ],
        { cwd: REPO, stdout: "pipe", stderr: "pipe" },
      );
      expect(build.stderr.toString()).not.toContain("error");
      expect(build.exitCode).toBe(0);
      const ws = join(dir.path, "ws");
      expect((await run(binary, ["init", ws], dir.path)).code).toBe(0);
      const inputs = [
        { path: join(SAMPLES, "sample.cpuprofile"), adapter: "v8-cpuprofile", table: "stacks" },
        {
          path: join(
            CORPUS,
            "otlp-proto",
            "local-otel-js-exporter-otlp-proto-0.223.1-batch-24spans.pb",
          ),
          adapter: "otlp-protobuf",
          table: "otel_spans",
        },
        {
          path: join(CORPUS, "perfetto", "perfetto-repo-nested_tracks.perfetto-trace"),
          adapter: "perfetto",
          table: "trace_events",
        },
      ];
      for (const input of inputs) {
        const imported = await run(binary, ["import", input.path, "--json"], ws);
        expect(imported.stderr).toBe("");
        expect(imported.code).toBe(0);
        const result = JSON.parse(imported.stdout);
        expect(result.extraction.status).toBe("published");
        expect(result.extraction.adapter).toBe(input.adapter);
        expect(result.extraction.tables[input.table]).toBeGreaterThan(0);
        // The worker was started before its request and read it from stdin.
        expect(typeof result.extraction.worker.stages_ms.request_wait).toBe("number");
      }
      expect(readdirSync(join(ws, ".diagnostics", "staging"))).toEqual([]);
    },
    120_000,
  );
});
