/**
 * End to end through the real CLI: import, dedup, hotspots, drill-down, trace window, cursors,
 * validate.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateChromeTrace } from "../../fixtures/generators/chrome-trace.ts";
import { SAMPLES, cli, heavyTest, tempWorkspace } from "../helpers.ts";

let root: string;
let cleanup: () => void;
let profile: any;
let trace: any;

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
  profile = (await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root }))
    .json;
  trace = (await cli(["import", join(SAMPLES, "sample-trace.json"), "--json"], { cwd: root })).json;
});
afterAll(() => cleanup());

describe("flameox CLI", () => {
  test(
    "import creates an import run, a content-addressed artifact and a committed " + "generation",
    async () => {
      expect(profile.run_id).toMatch(/^run_/);
      expect(profile.artifact_id).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(profile.extraction.adapter).toBe("v8-cpuprofile");
      expect(profile.extraction.tables.frame_measurements).toBeGreaterThan(0);
      expect(trace.extraction.adapter).toBe("chrome-trace");
      expect(trace.extraction.tables.trace_events).toBeGreaterThan(0);
      // A small artifact is encoded inline: the thread would cost more to start than it saves.
      expect(trace.extraction.worker.encode_threads).toBe(0);
      const run = await cli(["runs", "show", profile.run_id, "--json"], { cwd: root });
      expect(run.json).toMatchObject({
        run_type: "import",
        capture_status: "registered",
        extraction_status: "published",
      });
      expect(run.json.registrations[0]).toMatchObject({
        kind: "sample_profile",
        display_name: "sample.cpuprofile",
      });
      const status = await cli(["status", "--json"], { cwd: root });
      expect(status.json.corpus_commit_id).toBe(trace.extraction.corpus_commit_id);
      expect(status.json.catalog.in_sync).toBe(true);
    },
  );

  heavyTest(
    "a 56 MB trace is scanned in pieces and encoded on the thread under the default budget, " +
      "in one piece and inline under 512 MiB, with the same evidence",
    async () => {
      const big = join(root, "generated-56mb.json");
      await generateChromeTrace(big, 56 << 20, 7);
      const small = await tempWorkspace();
      const pieces = await tempWorkspace();
      try {
        writeFileSync(
          join(small.root, ".diagnostics", "config.toml"),
          "[extraction]\nworker_memory_bytes = 536870912\n",
        );
        // Two piece threads whatever the machine has, so the pieces run here too.
        writeFileSync(
          join(pieces.root, ".diagnostics", "config.toml"),
          "[extraction]\nscan_threads = 2\n",
        );
        const threaded = (await cli(["import", big, "--json"], { cwd: pieces.root })).json;
        const inline = (await cli(["import", big, "--json"], { cwd: small.root })).json;
        expect(threaded.extraction.worker.encode_threads).toBe(1);
        expect(inline.extraction.worker.encode_threads).toBe(0);
        expect(threaded.extraction.worker.scan_threads).toBe(2);
        expect(inline.extraction.worker.scan_threads).toBe(0);
        expect(threaded.extraction.tables.trace_events).toBeGreaterThan(100_000);
        expect(inline.extraction.tables).toEqual(threaded.extraction.tables);
        expect(inline.extraction.summary).toEqual(threaded.extraction.summary);
        const hot = async (cwd: string, id: string) =>
          (await cli(["analyze", "hotspots", id, "--limit", "20", "--json"], { cwd })).json;
        const a = await hot(pieces.root, threaded.run_id);
        const b = await hot(small.root, inline.run_id);
        expect(a.items.length).toBe(20);
        expect(b.items).toEqual(a.items);
        expect(b.coverage).toEqual(a.coverage);
      } finally {
        small.cleanup();
        pieces.cleanup();
      }
    },
  );

  test(
    "a zstd-compressed trace imports like the plain one; its registration says " + "zstd",
    async () => {
      const compressed = join(root, "sample-trace.json.zst");
      writeFileSync(
        compressed,
        Bun.zstdCompressSync(await Bun.file(join(SAMPLES, "sample-trace.json")).bytes()),
      );
      const r = await cli(["import", compressed, "--json"], { cwd: root });
      expect(r.code).toBe(0);
      expect(r.json.extraction).toMatchObject({
        adapter: "chrome-trace",
        status: "published",
        tables: trace.extraction.tables,
      });
      // The registration records the payload as it was stored: compressed.
      const run = await cli(["runs", "show", r.json.run_id, "--json"], { cwd: root });
      expect(run.json.registrations[0].media_type).toBe("application/zstd");
    },
  );

  test(
    "identical bytes imported twice are one artifact object with two registrations; " +
      "sensitivity is the maximum",
    async () => {
      const copy = join(root, "copy-of-profile.cpuprofile");
      copyFileSync(join(SAMPLES, "sample.cpuprofile"), copy);
      const again = await cli(["import", copy, "--sensitivity", "sensitive", "--json"], {
        cwd: root,
      });
      expect(again.code).toBe(0);
      expect(again.json.artifact_id).toBe(profile.artifact_id);
      expect(again.json.deduplicated).toBe(true);
      expect(again.json.run_id).not.toBe(profile.run_id);
      const shown = await cli(["artifacts", "show", profile.artifact_id, "--json"], { cwd: root });
      expect(shown.json.registration_count).toBe(2);
      expect(shown.json.registrations.map((r: any) => r.display_name).sort()).toEqual([
        "copy-of-profile.cpuprofile",
        "sample.cpuprofile",
      ]);
      expect(shown.json.effective_sensitivity).toBe("sensitive");
      const hex = profile.artifact_id.slice(7);
      expect(
        readdirSync(join(root, ".diagnostics", "artifacts", "sha256", hex.slice(0, 2))),
      ).toEqual([hex]);
      expect(JSON.stringify(shown.json)).not.toContain(root);
      // Two extractions of one artifact are not summed: the artifact's totals equal one run's.
      const byArtifact = (
        await cli(["analyze", "hotspots", profile.artifact_id, "--json"], { cwd: root })
      ).json;
      const byFirstRun = (
        await cli(["analyze", "hotspots", profile.run_id, "--json"], { cwd: root })
      ).json;
      expect(byArtifact.coverage.total_self_value).toBe(byFirstRun.coverage.total_self_value);
      expect(byArtifact.inputs.generation_ids).toHaveLength(1);
    },
  );

  test("hotspots name the commit, rank by self time and page with a cursor", async () => {
    const first = await cli(
      ["analyze", "hotspots", profile.artifact_id, "--limit", "3", "--json"],
      { cwd: root },
    );
    expect(first.code).toBe(0);
    const r = first.json;
    expect(r.corpus_commit_id).toMatch(/^sha256:/);
    expect(r.metric).toBe("cpu_time");
    expect(r.evidence.status === "available" || r.evidence.status === "partial").toBe(true);
    expect(r.items).toHaveLength(3);
    expect(r.items[0].self_value).toBeGreaterThanOrEqual(r.items[1].self_value);
    expect(r.truncated).toBe(true);
    const names = [] as string[];
    let cursor = r.next_cursor;
    while (cursor) {
      const page = await cli(
        ["analyze", "hotspots", profile.artifact_id, "--limit", "50", "--cursor", cursor, "--json"],
        { cwd: root },
      );
      names.push(...page.json.items.map((i: any) => i.function));
      cursor = page.json.next_cursor;
    }
    expect(names.length + 3).toBe(r.total);
    const byRun = await cli(["analyze", "hotspots", profile.run_id, "--limit", "3", "--json"], {
      cwd: root,
    });
    expect(byRun.json.items.map((i: any) => i.frame_id)).toEqual(
      r.items.map((i: any) => i.frame_id),
    );
    const text = await cli(["analyze", "hotspots", profile.artifact_id, "--limit", "5"], {
      cwd: root,
    });
    expect(text.stdout).toContain(r.items[0].function);
    expect(text.stdout).toContain(r.items[0].frame_id);
  });

  test("callers, callees and example stacks drill down from a hotspot", async () => {
    const hot = (
      await cli(["analyze", "hotspots", profile.artifact_id, "--limit", "50", "--json"], {
        cwd: root,
      })
    ).json;
    const fib = hot.items.find((i: any) => i.function === "fib");
    expect(fib).toBeDefined();
    const callers = await cli(["stacks", "callers", profile.artifact_id, fib.frame_id, "--json"], {
      cwd: root,
    });
    expect(callers.code).toBe(0);
    expect(callers.json.items.map((i: any) => i.function)).toContain("fib");
    const callees = await cli(["stacks", "callees", profile.artifact_id, fib.frame_id, "--json"], {
      cwd: root,
    });
    expect(callees.json.items.map((i: any) => i.function)).toContain("fib");
    const examples = await cli(
      ["stacks", "examples", profile.artifact_id, fib.frame_id, "--limit", "2", "--json"],
      { cwd: root },
    );
    expect(examples.json.items.length).toBeGreaterThan(0);
    expect(examples.json.items[0].frames.map((f: any) => f.frame_id)).toContain(fib.frame_id);
    const missing = await cli(
      ["stacks", "callers", profile.artifact_id, "fr_does_not_exist", "--json"],
      { cwd: root },
    );
    expect(missing.code).toBe(2);
    expect(missing.json.error.code).toBe("FRAME_NOT_FOUND");
  });

  test(
    "trace window returns overlapping slices ordered by time within the trace " + "bounds",
    async () => {
      const probe = (
        await cli(["trace", "window", trace.artifact_id, "--start", "0", "--end", "0", "--json"], {
          cwd: root,
        })
      ).json;
      const start = BigInt(probe.trace_bounds.start_ns);
      const end = BigInt(probe.trace_bounds.end_ns);
      expect(end).toBeGreaterThan(start);
      const mid = start + (end - start) / 2n;
      const w = await cli(
        [
          "trace",
          "window",
          trace.artifact_id,
          "--start",
          String(start),
          "--end",
          String(mid),
          "--limit",
          "20",
          "--json",
        ],
        { cwd: root },
      );
      expect(w.code).toBe(0);
      expect(w.json.items.length).toBeGreaterThan(0);
      for (const e of w.json.items) {
        expect(BigInt(e.ts_ns)).toBeLessThanOrEqual(mid);
        expect(BigInt(e.ts_ns) + BigInt(e.dur_ns ?? 0)).toBeGreaterThanOrEqual(start);
      }
      const ts = w.json.items.map((e: any) => BigInt(e.ts_ns));
      expect([...ts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ts);
      const bad = await cli(
        ["trace", "window", trace.artifact_id, "--start", "10", "--end", "5", "--json"],
        { cwd: root },
      );
      expect(bad.json.error.code).toBe("INVALID_ARGUMENTS");
    },
  );

  test(
    "trace window items carry each slice's thread CPU time where the producer measured " + "it",
    async () => {
      // Hand-made: an X with tdur, a B/E pair with tts (the thread ran 3 of its 10 µs), an X
      // without.
      const events = [
        { ph: "X", name: "compute", pid: 1, tid: 1, ts: 100, dur: 20, tdur: 18.5 },
        { ph: "B", name: "wait", pid: 1, tid: 1, ts: 130, tts: 1000 },
        { ph: "E", name: "wait", pid: 1, tid: 1, ts: 140, tts: 1003 },
        { ph: "X", name: "unmeasured", pid: 1, tid: 1, ts: 150, dur: 5 },
      ];
      const path = join(root, "thread-time.json");
      writeFileSync(path, JSON.stringify({ traceEvents: events }));
      const imported = (await cli(["import", path, "--json"], { cwd: root })).json;
      const w = await cli(
        [
          "trace",
          "window",
          imported.artifact_id,
          "--start",
          "0",
          "--end",
          String(10n ** 18n),
          "--json",
        ],
        { cwd: root },
      );
      expect(w.code).toBe(0);
      const byName = Object.fromEntries(
        w.json.items.map((e: any) => [e.name, [e.dur_ns, e.thread_dur_ns]]),
      );
      expect(byName).toEqual({
        compute: [20_000, 18_500],
        wait: [10_000, 3_000],
        unmeasured: [5_000, null],
      });
      const text = await cli(
        ["trace", "window", imported.artifact_id, "--start", "0", "--end", String(10n ** 18n)],
        { cwd: root },
      );
      expect(text.stdout).toContain("CPU");
    },
  );

  test(
    "a profile has no trace events: the window says empty, not zero events " + "observed",
    async () => {
      const w = await cli(
        ["trace", "window", profile.artifact_id, "--start", "0", "--end", "1", "--json"],
        { cwd: root },
      );
      expect(w.json.evidence.status).toBe("empty");
    },
  );

  test("a cursor from an older commit fails with STALE_CURSOR", async () => {
    const page = (
      await cli(["analyze", "hotspots", profile.artifact_id, "--limit", "1", "--json"], {
        cwd: root,
      })
    ).json;
    expect(page.next_cursor).toBeTruthy();
    const other = join(root, "other.json");
    await Bun.write(
      other,
      JSON.stringify({ traceEvents: [{ ph: "X", name: "a", ts: 1, dur: 2, pid: 1, tid: 1 }] }),
    );
    expect((await cli(["import", other], { cwd: root })).code).toBe(0);
    const stale = await cli(
      ["analyze", "hotspots", profile.artifact_id, "--cursor", page.next_cursor, "--json"],
      { cwd: root },
    );
    expect(stale.code).toBe(2);
    expect(stale.json.error.code).toBe("STALE_CURSOR");
  });

  test("validate passes, and --full rehashes artifacts and evidence", async () => {
    const v = await cli(["validate", "--full", "--json"], { cwd: root });
    expect(v.code).toBe(0);
    expect(v.json.ok).toBe(true);
    expect(v.json.counts.rehashed_bytes).toBeGreaterThan(0);
  });

  test("catalog rebuild restores the same view of HEAD", async () => {
    const before = (await cli(["catalog", "validate", "--json"], { cwd: root })).json;
    expect(before.ok).toBe(true);
    const rebuilt = await cli(["catalog", "rebuild", "--json"], { cwd: root });
    expect(rebuilt.json.corpus_head).toBe(before.corpus_head);
    expect(rebuilt.json.missing_generations).toEqual([]);
  });

  test("unknown commands and bad arguments exit 2 with a typed error", async () => {
    const r = await cli(["analyze", "hotspots", profile.artifact_id, "--limit", "zero", "--json"], {
      cwd: root,
    });
    expect(r.code).toBe(2);
    expect(r.json.error).toMatchObject({ code: "INVALID_ARGUMENTS", retryable: false });
    const missing = await cli(["runs", "show", "run_nope", "--json"], { cwd: root });
    expect(missing.json.error.code).toBe("RUN_NOT_FOUND");
  });
});
