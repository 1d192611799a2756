/**
 * A parse worker loads what its import needs and no more: every import pays for the
 * worker's start, and most are small profiles. A plain (uncompressed) V8 CPU profile small
 * enough for no threads must not load tinypool (threads), saxes (XML reports), csv-parse
 * (Nsight CSV), protobufjs, or apache-arrow (no worker does: it writes its Parquet parts'
 * Arrow IPC streams itself, src/storage/arrow-ipc-stream.ts). Checked
 * in a fresh process, whose module cache nothing else has filled. (Node built-ins such as
 * node:zlib are not in the module cache; that a gzip payload, which loads it on demand,
 * still parses is checked here too.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { PARSE_PROTOCOL } from "../../src/domain/parse-protocol.ts";
import { REPO, tempDir } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const NOT_FOR_A_SMALL_PROFILE =
  /node_modules\/(tinypool|saxes|xmlchars|csv-parse|protobufjs|apache-arrow)\//;

/** A payload and its parse request, in a directory of their own. */
function requestFor(
  name: string,
  payload: Uint8Array,
): { root: string; output: string; request: string } {
  const root = join(dir.path, name);
  const output = join(root, "out");
  mkdirSync(output, { recursive: true });
  const payloadPath = join(root, "payload");
  writeFileSync(payloadPath, payload);
  const request = JSON.stringify({
    protocol: PARSE_PROTOCOL,
    operation_id: "op_worker-start",
    payload_path: payloadPath,
    display_name: "profile.cpuprofile",
    adapter: null,
    output_dir: output,
    limits: {
      max_events: 1_000_000,
      max_nesting_depth: 256,
      max_args_bytes: 1024,
      max_decompressed_bytes: 1 << 30,
      memory_bytes: 8 * 1024 ** 3,
      scan_threads: -1,
    },
    provenance: {
      run_id: "run_worker-start",
      artifact_id: `sha256:${"0".repeat(64)}`,
      generation_id: "gen_worker-start",
    },
  });
  return { root, output, request };
}

/** Runs one parse in a fresh process; returns its response and the modules it loaded. */
function parseInFreshProcess(name: string, payload: Uint8Array): { ok: boolean; loaded: string[] } {
  const { root, output, request } = requestFor(name, payload);
  const requestPath = join(root, "request.json");
  writeFileSync(requestPath, request);
  const worker = join(REPO, "workers", "parse.ts");
  const probe = `const { runParseWorker } = await import(${JSON.stringify(worker)});
    const code = await runParseWorker(${JSON.stringify(requestPath)});
    if (code !== 0) throw new Error("worker exited " + code);
    console.log(JSON.stringify(Object.keys(require.cache)));`;
  const r = Bun.spawnSync([process.execPath, "-e", probe], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1" },
  });
  expect(r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  const loaded: string[] = JSON.parse(r.stdout.toString().trim().split("\n").at(-1)!);
  const response = JSON.parse(readFileSync(join(output, "response.json"), "utf8"));
  return { ok: response.ok, loaded };
}

describe("parse worker start", () => {
  const profile = readFileSync(join(REPO, "fixtures", "samples", "sample.cpuprofile"));

  test("a small plain profile loads no threads, XML, CSV, protobuf or Arrow JS code", () => {
    const { ok, loaded } = parseInFreshProcess("plain", profile);
    expect(ok).toBe(true);
    expect(loaded.filter((p) => NOT_FOR_A_SMALL_PROFILE.test(p))).toEqual([]);
    // The probe sees what was loaded: the IPC stream writer's flatbuffers and parquet-wasm are.
    expect(loaded.some((p) => p.includes("node_modules/flatbuffers/"))).toBe(true);
    expect(loaded.some((p) => p.includes("node_modules/parquet-wasm/"))).toBe(true);
  }, 60_000);

  test("a small profile loads its own adapter and no other format's parser", () => {
    const { ok, loaded } = parseInFreshProcess("own-adapter", profile);
    expect(ok).toBe(true);
    // Detection reads every format's description (adapter-entries.ts); only the chosen
    // format's adapter module, which holds its parser, is loaded.
    const adapterModules = loaded
      .map((p) => relative(join(REPO, "src", "adapters"), p))
      .filter((p) => /^[^/]+\/(.*-)?adapters?\.ts$|^[^/]+\/sidecar-samples\.ts$/.test(p));
    expect(adapterModules).toEqual(["v8-cpuprofile/adapter.ts"]);
    expect(loaded.some((p) => p.endsWith("src/adapters/registry.ts"))).toBe(false);
  }, 60_000);

  test("a gzip payload still decompresses, node:zlib loaded when needed", () => {
    const { ok } = parseInFreshProcess("gzip", gzipSync(profile));
    expect(ok).toBe(true);
  }, 60_000);
});

describe("a parse worker started before its request", () => {
  const profile = readFileSync(join(REPO, "fixtures", "samples", "sample.cpuprofile"));
  const worker = join(REPO, "workers", "parse.ts");

  test("reads it from stdin when it comes, and says how long it waited", async () => {
    const { root, output, request } = requestFor("stdin", profile);
    const child = Bun.spawn([process.execPath, worker, "-"], {
      cwd: root,
      stdin: "pipe",
      stderr: "pipe",
    });
    await Bun.sleep(1500);
    child.stdin.write(request);
    await child.stdin.end();
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stderr).text()).toBe("");
    const response = JSON.parse(readFileSync(join(output, "response.json"), "utf8"));
    expect(response.ok).toBe(true);
    expect(response.tables.length).toBeGreaterThan(0);
    // Loaded well within the 1.5 s, it waited for the rest; the wait is not the worker's start.
    expect(response.stages_ms.request_wait).toBeGreaterThan(500);
    expect(response.stages_ms.open_detect).toBeLessThan(response.stages_ms.request_wait);
  }, 60_000);

  test("no request (stdin closed empty) or one that is not JSON: exit 2, nothing written", async () => {
    for (const [name, input, problem] of [
      ["none", "", "no parse request"],
      ["garbage", "{not json", "invalid parse request: not JSON"],
    ] as const) {
      const { root, output } = requestFor(`stdin-${name}`, profile);
      const child = Bun.spawn([process.execPath, worker, "-"], {
        cwd: root,
        stdin: new TextEncoder().encode(input),
        stderr: "pipe",
      });
      expect(await child.exited).toBe(2);
      expect((await new Response(child.stderr).text()).trim()).toBe(problem);
      expect(readdirSync(output)).toEqual([]);
    }
  }, 60_000);
});
