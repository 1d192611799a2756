/**
 * NVBench sample sidecars: a JSON written here the way NVBench's json_printer writes one
 * (`nv/json/bin:nv/cold/sample_times` and `nv/json/freqs-bin:nv/cold/sample_freqs`
 * summaries with `filename` and `size` data, float32 little-endian files beside it). The
 * sidecars it declares are read only through the import fence: the ones that pass become
 * artifacts of the same run whose samples are measurements of their state; a hostile or
 * broken declaration (a path out of the root, an absolute path elsewhere, a symlink, a
 * wrong size, a missing file) is named in a limitation and the import still succeeds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, tempWorkspace } from "../helpers.ts";
import { call, connect } from "../mcp/mcp-helpers.ts";

type Json = any;

let root = "";
let cleanup = () => {};

const run = async (args: string[]) => {
  const r = await cli(args, { cwd: root });
  expect([args.join(" "), r.code, r.stderr]).toEqual([args.join(" "), 0, ""]);
  return r.json as Json;
};

const float32 = (values: number[]) => new Uint8Array(new Float32Array(values).buffer);
const sidecar = (tag: string, filename: string, size: number) => ({
  tag,
  name: tag,
  hint: tag.includes("freqs") ? "file/sample_freqs" : "file/sample_times",
  description: "samples",
  hide: "",
  data: [
    { name: "filename", type: "string", value: filename },
    { name: "size", type: "int64", value: String(size) },
  ],
});
const mean = (value: number) => ({
  tag: "nv/cold/time/gpu/mean",
  name: "GPU Time",
  hint: "duration",
  data: [{ name: "value", type: "float64", value: String(value) }],
});
function state(index: number, summaries: unknown[]) {
  return {
    name: `Device=0 Elements=${2 ** (10 + index)}`,
    device: 0,
    type_config_index: 0,
    axis_values: [{ name: "Elements", type: "int64", value: String(2 ** (10 + index)) }],
    summaries,
    is_skipped: false,
  };
}
function nvbenchJson(states: unknown[]): string {
  return JSON.stringify({
    meta: { version: { json: { string: "1.0.0" }, nvbench: { string: "0.1.0" } } },
    devices: [{ id: 0, name: "NVIDIA H100" }],
    benchmarks: [
      {
        name: "copy",
        index: 0,
        min_samples: 10,
        devices: [0],
        axes: [{ name: "Elements", type: "int64", flags: "pow2", values: [] }],
        states,
      },
    ],
  });
}

const times = [
  [1.5e-5, 1.25e-5, 1.75e-5, 1.5e-5],
  [3.0e-5, 2.5e-5, 3.5e-5],
];
const freqs = [1.98e9, 1.755e9, 1.98e9, 1.41e9];

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
  mkdirSync(join(root, "bench", "result.json-bin"), { recursive: true });
  mkdirSync(join(root, "bench", "result.json-freqs-bin"), { recursive: true });
  writeFileSync(join(root, "bench", "result.json-bin", "0.bin"), float32(times[0]!));
  writeFileSync(join(root, "bench", "result.json-bin", "1.bin"), float32(times[1]!));
  writeFileSync(join(root, "bench", "result.json-freqs-bin", "0.bin"), float32(freqs));
  writeFileSync(
    join(root, "bench", "good.json"),
    nvbenchJson([
      state(0, [
        mean(1.5e-5),
        sidecar("nv/json/bin:nv/cold/sample_times", "result.json-bin/0.bin", 4),
        sidecar("nv/json/freqs-bin:nv/cold/sample_freqs", "result.json-freqs-bin/0.bin", 4),
      ]),
      state(1, [
        mean(3e-5),
        sidecar("nv/json/bin:nv/cold/sample_times", "result.json-bin/1.bin", 3),
      ]),
    ]),
  );
  // Hostile and broken declarations.
  writeFileSync(join(root, "outside.bin"), float32([1, 2]));
  symlinkSync(join(root, "bench", "result.json-bin", "0.bin"), join(root, "bench", "link.bin"));
  writeFileSync(
    join(root, "bench", "hostile.json"),
    nvbenchJson([
      state(0, [
        mean(1.5e-5),
        sidecar("nv/json/bin:nv/cold/sample_times", "../../etc/passwd", 4),
        sidecar("nv/json/bin:nv/cold/sample_times", "/etc/passwd", 4),
        sidecar("nv/json/bin:nv/cold/sample_times", "link.bin", 4),
        sidecar("nv/json/bin:nv/cold/sample_times", "result.json-bin/1.bin", 4),
        sidecar("nv/json/bin:nv/cold/sample_times", "result.json-bin/9.bin", 4),
        sidecar("nv/json/bin:nv/cold/sample_times", "../.diagnostics/config.toml", 4),
      ]),
    ]),
  );
}, 60_000);
afterAll(() => cleanup());

describe("NVBench sidecars", () => {
  let imported: Json = null;

  test("declared sidecars inside the root are registered to the same run, content " +
    "addressed", async () => {
    imported = await run(["import", "bench/good.json", "--json"]);
    expect(imported.extraction.adapter).toBe("nvbench");
    expect(imported.companions.map((c: Json) => [c.filename, c.status, c.rows])).toEqual([
      ["result.json-bin/0.bin", "imported", 4],
      ["result.json-freqs-bin/0.bin", "imported", 4],
      ["result.json-bin/1.bin", "imported", 3],
    ]);
    const sha = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    expect(imported.companions.map((c: Json) => c.artifact_id)).toEqual([
      sha(float32(times[0]!)),
      sha(float32(freqs)),
      sha(float32(times[1]!)),
    ]);
    const shown = await run(["runs", "show", imported.run_id, "--json"]);
    expect(shown.registrations.map((r: Json) => [r.display_name, r.role]).sort()).toEqual([
      ["good.json", "input"],
      ["result.json-bin/0.bin", "sidecar"],
      ["result.json-bin/1.bin", "sidecar"],
      ["result.json-freqs-bin/0.bin", "sidecar"],
    ]);
    expect([shown.extraction_status, shown.limitations]).toEqual(["published", []]);
  }, 60_000);

  test("each sample is a measurement of its state: the float32 values, times in ns, with the " +
    "state's dimensions", async () => {
    const page = await run([
      "measurements",
      "query",
      "--run-id",
      imported.run_id,
      "--limit",
      "100",
      "--json",
    ]);
    const samples = page.items.filter((m: Json) => m.aggregation === "sample");
    const f32 = (v: number) => Math.fround(v);
    const expected = [
      ...times[0]!.map((t, i) => [
        "nv/cold/sample_times",
        "copy/Device=0 Elements=1024",
        i,
        f32(t) * 1e9,
        "ns",
      ]),
      ...freqs.map((f, i) => [
        "nv/cold/sample_freqs",
        "copy/Device=0 Elements=1024",
        i,
        f32(f),
        "hz",
      ]),
      ...times[1]!.map((t, i) => [
        "nv/cold/sample_times",
        "copy/Device=0 Elements=2048",
        i,
        f32(t) * 1e9,
        "ns",
      ]),
    ];
    expect(
      samples.map((m: Json) => [m.name, m.scope, m.value_index, m.value, m.unit]).sort(),
    ).toEqual(expected.sort());
    const one = samples.find(
      (m: Json) => m.name === "nv/cold/sample_times" && m.scope === "copy/Device=0 Elements=1024",
    );
    expect(one.dimensions).toMatchObject({
      device: 0,
      device_name: "NVIDIA H100",
      "axis.Elements": 1024,
      native_unit: "s",
    });
    // The summaries of the JSON are still there beside them.
    expect(page.items.filter((m: Json) => m.name === "nv/cold/time/gpu/mean").length).toBe(2);
  }, 60_000);

  test("a path out of the root, an absolute path elsewhere, a symlink, a wrong size, a missing " +
    "file: refused and named, the import succeeds", async () => {
    const r = await run(["import", "bench/hostile.json", "--json"]);
    expect(r.companions.map((c: Json) => [c.filename, c.status, c.artifact_id])).toEqual([
      ["../../etc/passwd", "refused", null],
      ["/etc/passwd", "refused", null],
      ["link.bin", "refused", null],
      ["result.json-bin/1.bin", "size_mismatch", null],
      ["result.json-bin/9.bin", "missing", null],
      ["../.diagnostics/config.toml", "refused", null],
    ]);
    expect(r.companions[0].reason).toContain("outside the project root");
    expect(r.companions[2].reason).toContain("symbolic link");
    expect(r.companions[3].reason).toBe("the file holds 12 bytes, the declaration says 16");
    const shown = await run(["runs", "show", r.run_id, "--json"]);
    expect(shown.registrations.map((x: Json) => x.role)).toEqual(["input"]);
    expect(shown.extraction_status).toBe("published");
    expect(shown.limitations.map((l: Json) => [l.code, l.count])).toEqual([
      ["sidecar_not_read", 6],
    ]);
    expect(r.extraction.tables.measurements).toBe(1);
  }, 60_000);

  test("import_artifact over MCP reads sidecars through the same fence", async () => {
    const mcp = await connect(root, { tools: null });
    try {
      const good = await call(mcp.client, "import_artifact", { path: "bench/good.json" });
      expect(good.isError).toBe(false);
      expect(good.result.companions.map((c: Json) => c.status)).toEqual([
        "imported",
        "imported",
        "imported",
      ]);
      const hostile = await call(mcp.client, "import_artifact", { path: "bench/hostile.json" });
      expect(hostile.result.companions.map((c: Json) => c.status)).toEqual([
        "refused",
        "refused",
        "refused",
        "size_mismatch",
        "missing",
        "refused",
      ]);
    } finally {
      await mcp.close();
    }
  }, 60_000);
});
