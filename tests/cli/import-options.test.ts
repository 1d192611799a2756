/**
 * `flameox import` checks its options through the import request schema before anything is copied
 * or recorded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SAMPLES, cli, tempWorkspace } from "../helpers.ts";

let root: string;
let cleanup: () => void;

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
});
afterAll(() => cleanup());

describe("flameox import options", () => {
  test(
    "a bad --kind or --media-type exits 2 with INVALID_ARGUMENTS naming the field, and records " +
      "no run",
    async () => {
      const kind = await cli(
        ["import", join(SAMPLES, "sample.cpuprofile"), "--kind", "flamegraph", "--json"],
        { cwd: root },
      );
      expect(kind.code).toBe(2);
      expect(kind.json.error).toMatchObject({
        code: "INVALID_ARGUMENTS",
        details: { field: "kind" },
      });
      const media = await cli(
        ["import", join(SAMPLES, "sample.cpuprofile"), "--media-type", "json", "--json"],
        { cwd: root },
      );
      expect(media.json.error).toMatchObject({
        code: "INVALID_ARGUMENTS",
        details: { field: "media_type" },
      });
      const runs = await cli(["runs", "list", "--json"], { cwd: root });
      expect(runs.json.items).toEqual([]);
    },
  );

  test("valid options reach the registration", async () => {
    const r = await cli(
      [
        "import",
        join(SAMPLES, "sample.cpuprofile"),
        "--kind",
        "sample_profile",
        "--producer",
        "node",
        "--producer-version",
        "22.1.0",
        "--json",
      ],
      { cwd: root },
    );
    expect(r.code).toBe(0);
    const run = await cli(["runs", "show", r.json.run_id, "--json"], { cwd: root });
    expect(run.json.registrations[0]).toMatchObject({
      kind: "sample_profile",
      producer: "node",
      producer_version: "22.1.0",
    });
  });
});
