/**
 * A crash after HEAD moved is a success: the generation is published, so `recover`
 * records the run as published from the corpus instead of abandoning it.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SAMPLES, cli, tempWorkspace } from "../helpers.ts";

test("recover marks a run published when its process died after HEAD moved", async () => {
  const { root, cleanup } = await tempWorkspace();
  try {
    const crashed = await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], {
      cwd: root,
      env: { FLAMEOX_FAULT_INJECT: "post_head" },
    });
    expect(crashed.signal).toBe("SIGKILL");
    const head = JSON.parse(
      readFileSync(
        join(
          root,
          ".diagnostics",
          "corpus",
          "commits",
          `${readFileSync(join(root, ".diagnostics", "corpus", "HEAD"), "utf8")
            .trim()
            .slice(7)}.json`,
        ),
        "utf8",
      ),
    );
    const generation = head.generations[0];
    const runId = generation.run_ids[0];

    const recovered = await cli(["recover", "--json"], { cwd: root });
    expect(recovered.json.closed).toEqual([]);
    expect(recovered.json.reconciled).toEqual([
      { run_id: runId, generation_ids: [generation.generation_id] },
    ]);

    const run = (await cli(["runs", "show", runId, "--json"], { cwd: root })).json;
    expect(run.extraction_status).toBe("published");
    expect(run.error).toBeNull();
    expect(run.generation_ids).toEqual([generation.generation_id]);
    const status = (await cli(["status", "--json"], { cwd: root })).json;
    expect(status.catalog.in_sync).toBe(true);
    const hot = await cli(["analyze", "hotspots", generation.artifact_ids[0], "--json"], {
      cwd: root,
    });
    expect(hot.json.items.length).toBeGreaterThan(0);
  } finally {
    cleanup();
  }
}, 60_000);
