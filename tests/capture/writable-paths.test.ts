/**
 * A sandboxed workload must not be able to plant something that runs later outside the
 * sandbox: a writable root that is, lies in, or contains a version-control or hook
 * directory is refused at plan time, whatever the containment.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type CaptureProject, captureProject } from "./capture-helpers.ts";

const TOML = `# writable roots
[workloads.hooks]
argv = ["true"]
writable_paths = [".git/hooks"]

[workloads.whole_project]
argv = ["true"]
writable_paths = ["."]

[workloads.husky]
argv = ["true"]
writable_paths = ["tools"]

[workloads.nested_repo]
argv = ["true"]
writable_paths = ["vendor"]

[workloads.fine]
argv = ["true"]
writable_paths = ["out"]
`;

let p: CaptureProject;
beforeAll(async () => {
  p = await captureProject(TOML, { git: true });
  mkdirSync(join(p.root, "tools", ".husky"), { recursive: true });
  mkdirSync(join(p.root, "vendor", "lib", ".hg"), { recursive: true });
  mkdirSync(join(p.root, "out"), { recursive: true });
});
afterAll(() => p.cleanup());

test.each([
  ["hooks", /lies in \.git/],
  ["whole_project", /contains \.git/],
  ["husky", /contains tools\/\.husky/],
  ["nested_repo", /contains vendor\/lib\/\.hg/],
])("workload %s: its writable root is refused", async (workload, why) => {
  const planning = (await p.service.capture()).plan({
    adapter: "command",
    workload,
    containment: "trusted_local",
  });
  await expect(planning).rejects.toMatchObject({ code: "EXECUTION_REFUSED" });
  await expect(planning).rejects.toThrow(why);
});

test("a writable root free of version-control directories is accepted", async () => {
  const preview = await (await p.service.capture()).plan({
    adapter: "command",
    workload: "fine",
    containment: "trusted_local",
  });
  expect(preview.plan_id).toMatch(/^[0-9a-f]{64}$/);
});
