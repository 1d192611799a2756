/**
 * Collapsed stacks: every corpus file imports and its self counts per leaf function equal
 * an independent count over the raw lines; perf script text collapsed here (by cutting
 * samples at blank lines, not by the adapters' readers) imports with the same per-function
 * self samples as the perf-script adapter finds in the original; UTF-16, CRLF, comments,
 * invalid lines and --pid/--tid prefixes are handled as stated.
 */
import { describe, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { collapsedStacksAdapter } from "../../src/adapters/collapsed-stacks/adapter.ts";
import { perfScriptAdapter } from "../../src/adapters/perf-script/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { sampledTextChunks } from "../../fixtures/generators/sampled-stacks-text.ts";
import { REPO } from "../helpers.ts";
import { corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { chunksWithNewNames, retainedAfterInput } from "./retained-input.ts";
import { runStream, streamedTableRows } from "./stream-harness.ts";
import { extracted } from "./adapter-harness.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const extract = async (bytes: Uint8Array, maxEvents = DEFAULT_ADAPTER_LIMITS.maxEvents) =>
  await extracted(collapsedStacksAdapter, {
    bytes,
    displayName: "t",
    limits: { ...DEFAULT_ADAPTER_LIMITS, maxEvents },
  });

function selfByFunction(evidence: NormalizedEvidence, metric: string): [string, number][] {
  const names = new Map(
    rowsOf(evidence.tables.frames).map((f) => [f.frame_id as string, f.function as string]),
  );
  const out = new Map<string, number>();
  for (const m of rowsOf(evidence.tables.frame_measurements)) {
    if (m.metric !== metric || Number(m.self_samples) === 0) continue;
    const name = names.get(m.frame_id as string)!;
    out.set(name, (out.get(name) ?? 0) + Number(m.self_samples));
  }
  return [...out].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** Independent: the text after the last `;` before the last space, annotation cut by string ops. */
function referenceLeafCounts(text: string): [string, number][] {
  const out = new Map<string, number>();
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "").trim();
    const space = line.lastIndexOf(" ");
    if (
      space < 0 ||
      line.startsWith("#") ||
      line.startsWith("//") ||
      !/^\d+$/.test(line.slice(space + 1))
    )
      continue;
    const stack = line.slice(0, space).trim();
    let leaf = stack.slice(stack.lastIndexOf(";") + 1).trim();
    if (
      leaf.length > 4 &&
      leaf.endsWith("]") &&
      leaf[leaf.length - 4] === "_" &&
      leaf[leaf.length - 3] === "["
    )
      leaf = leaf.slice(0, -4);
    // An empty frame (`a;;b`, `a; 3`) is named [unknown], as the format docs say.
    if (leaf === "") leaf = "[unknown]";
    out.set(leaf, (out.get(leaf) ?? 0) + Number(line.slice(space + 1)));
  }
  return [...out].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/**
 * perf script → collapsed, as stackcollapse-perf.pl does it (comm first, offsets dropped, samples
 * counted 1).
 */
function collapsePerfScript(text: string, event: string): string {
  const counts = new Map<string, number>();
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
    if (lines.length < 2 || !lines[0]!.trim().endsWith(`${event}:`)) continue;
    const comm = lines[0]!.trim().split(/\s+/)[0]!;
    const frames = lines
      .slice(1)
      .map((l) =>
        l
          .trim()
          .replace(/^\S+\s+/, "")
          .replace(/\s*\([^()]*\)$/, "")
          .replace(/\+0x[0-9a-f]+$/, ""),
      )
      .reverse();
    const key = [comm, ...frames].join(";");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, v]) => `${k} ${v}`).join("\n") + "\n";
}

describe("collapsed-stacks adapter", () => {
  test("frames met chunk after chunk keep nothing of the chunks they were read from", async () => {
    // Each 1 MiB chunk brings one new frame; the rest repeats known ones (kept substrings held 1
    // MiB a chunk).
    const chunks = chunksWithNewNames(
      24,
      (i) => `main;fresh_${i} 1\n`,
      `main;${"known_function_with_a_long_name".repeat(8)};leaf 1\n`,
    );
    const { inputBytes, retainedBytes } = await retainedAfterInput(collapsedStacksAdapter, chunks);
    expect(retainedBytes).toBeLessThan(inputBytes / 4);
  });

  test("stacks remembered for their repeats keep nothing of the chunks they were cut " +
    "from", async () => {
    // The benchmark's generated profile: stacks drawn from a skewed pool, so rare ones keep
    // turning up, each then remembered. Its lines straddle chunks, and a line cut from a carried
    // line joined to the next chunk keeps that whole joined text alive: kept as such, every
    // newly met stack held about a chunk (36 MB more live memory per 50 MB read).
    const live: number[] = [];
    let n = 0;
    async function* feed(): AsyncGenerator<Uint8Array> {
      for (const chunk of sampledTextChunks("collapsed", 48 << 20)) {
        yield chunk;
        if (++n % 16 === 0) {
          Bun.gc(true);
          live.push(heapStats().extraMemorySize);
        }
      }
    }
    await collapsedStacksAdapter.extractStream!({
      chunks: feed(),
      displayName: "generated",
      limits: DEFAULT_ADAPTER_LIMITS,
      sink: { writeBatch: async () => {} },
    });
    expect(live.length).toBeGreaterThanOrEqual(3);
    expect(live.at(-1)! - live[0]!).toBeLessThan(8 << 20);
  }, 60_000);

  for (const file of corpusFiles("collapsed-stacks")) {
    test(
      `${file.name}: detected, and self counts ` + `per leaf equal an independent count`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(
          detectAdapter({
            head: headOf(bytes),
            headBytes: bytes.subarray(0, 65536),
            displayName: "upload",
          })?.name,
        ).toBe("collapsed-stacks");
        const text =
          bytes[0] === 0xff
            ? new TextDecoder("utf-16le").decode(bytes)
            : bytes[0] === 0xfe
              ? new TextDecoder("utf-16be").decode(bytes)
              : new TextDecoder().decode(bytes);
        expect(selfByFunction(await extract(bytes), "samples")).toEqual(referenceLeafCounts(text));
      },
    );
  }

  test(
    "perf script collapsed independently imports with the perf-script adapter's self " + "samples",
    async () => {
      const script = readFileSync(
        join(REPO, "fixtures", "perf-script", "fork-two-events.perf.txt"),
        "utf8",
      );
      const fromScript = await extracted(perfScriptAdapter, {
        bytes: enc(script),
        displayName: "t",
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      const fromCollapsed = await extract(enc(collapsePerfScript(script, "cpu-clock")));
      expect(selfByFunction(fromCollapsed, "samples")).toEqual(
        selfByFunction(fromScript, "cpu_time"),
      );
      // Inclusive: the process frame (comm) holds every sample.
      const comm = rowsOf(fromCollapsed.tables.frame_measurements).find(
        (m) =>
          rowsOf(fromCollapsed.tables.frames).find((f) => f.frame_id === m.frame_id)!.function ===
          "hot",
      )!;
      expect(Number(comm.inclusive_samples)).toBe(44);
    },
  );

  test(
    "UTF-16 (both byte orders) and CRLF read as the UTF-8 file does; comments skipped, invalid " +
      "lines counted",
    async () => {
      const files = corpusFiles("collapsed-stacks").filter((f) =>
        f.name.startsWith("speedscope-fixture-simple"),
      );
      const results = await Promise.all(
        files.map(async (f) => ({ name: f.name, evidence: await extract(loadPayload(f.path)) })),
      );
      const first = JSON.stringify(rowsOf(results[0]!.evidence.tables.stacks));
      for (const r of results)
        expect([r.name, JSON.stringify(rowsOf(r.evidence.tables.stacks))]).toEqual([r.name, first]);
      expect(results.find((r) => r.name.includes("utf16-le"))!.evidence.summary.encoding).toBe(
        "utf-16le",
      );
      const invalids = results.find((r) => r.name.includes("invalids"))!.evidence;
      expect(invalids.summary.comment_lines).toBe(2);
      expect(invalids.limitations.find((l) => l.code === "invalid_lines")?.count).toBe(1);
    },
  );

  test("annotations set the frame's language; --pid/--tid prefixes become tracks", async () => {
    const evidence = await extract(
      enc(
        "java-10/11;main;vfs_read_[k] 2\njava-10/12;main;Lfoo.bar_[j] " +
          "3\njava-10/12;main;inl_[i] 1\n",
      ),
    );
    const frames = rowsOf(evidence.tables.frames);
    expect(frames.map((f) => `${f.language}:${f.function}`).sort()).toEqual(
      ["jit:Lfoo.bar", "kernel:vfs_read", "native:inl", "native:main"].sort(),
    );
    const tracks = [
      ...new Set(
        rowsOf(evidence.tables.frame_measurements).map((m) => `${m.track_id}|${m.process_name}`),
      ),
    ].sort();
    expect(tracks).toEqual(["10:11|java", "10:12|java"]);
    expect(evidence.summary.inlined_frames).toBe(1);
  });

  test(
    "streaming in 7-byte chunks with the trie spilling every 4 stacks gives the same " + "rows",
    async () => {
      const bytes = enc(
        collapsePerfScript(
          readFileSync(
            join(REPO, "fixtures", "perf-script", "node-perf-basic-prof.perf.txt"),
            "utf8",
          ),
          "cpu-clock",
        ),
      );
      const whole = await extract(bytes);
      const run = await runStream(collapsedStacksAdapter, bytes, {
        chunkSize: 7,
        spill: new MemorySpillSpace(),
        maxStacksInMemory: 4,
      });
      const key = (r: Record<string, unknown>) =>
        JSON.stringify(r, (_, v) =>
          typeof v === "bigint" || typeof v === "number" ? String(v) : v,
        );
      expect(streamedTableRows(run, "stacks").map(key).sort()).toEqual(
        rowsOf(whole.tables.stacks).map(key).sort(),
      );
      expect(run.evidence.summary).toEqual(whole.summary);
    },
  );

  test("bad input ends in typed errors", async () => {
    const code = async (run: Promise<unknown>) => {
      try {
        await run;
        return "ok";
      } catch (error) {
        return error instanceof FlameoxError ? error.code : String(error);
      }
    };
    expect(await code(extract(enc("no counts here\nnor here\n")))).toBe("ARTIFACT_PARSE_FAILED");
    expect(await code(extract(enc("a;b 1\na;c 2\na;d 3\n"), 2))).toBe("ARTIFACT_TOO_LARGE");
    expect(await code(extract(new Uint8Array(5 << 20).fill(0x3b)))).toBe("ARTIFACT_PARSE_FAILED");
    expect((await extract(new Uint8Array(0))).limitations.map((l) => l.code)).toContain(
      "no_samples",
    );
    // Counts that cannot be summed exactly in int64 columns: a line's is no count; a total is too
    // large.
    expect(
      (await extract(enc("a;b 1\na;c 1e158\na;d 100000000000000000000000\n"))).limitations.find(
        (l) => l.code === "invalid_lines",
      )?.count,
    ).toBe(2);
    expect(await code(extract(enc("a;b 9007199254740991\na;c 9007199254740991\n")))).toBe(
      "ARTIFACT_TOO_LARGE",
    );
  });
});
