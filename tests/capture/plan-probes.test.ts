/**
 * Planning is a preview: a project executable's `--version` (which the V8 adapters need)
 * never runs on the host. Under trusted_local it is not run at all and the plan says why;
 * under managed containment it runs inside the sandbox, where it cannot write the project.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CaptureProject, captureProject } from "./capture-helpers.ts";

const TOML = `# plan-time probes
[workloads.fake_node]
argv = ["./workloads/node", "main.js"]
`;

let p: CaptureProject;
let marker: string;

beforeAll(async () => {
  p = await captureProject(TOML, { git: false });
  marker = join(p.root, "version-probe-ran");
  writeFileSync(join(p.root, "workloads", "node"), `#!/bin/sh\ntouch ${marker}\necho v20.0.0\n`);
  chmodSync(join(p.root, "workloads", "node"), 0o755);
});
afterAll(() => p.cleanup());

test(
  "trusted_local: a project executable's --version is not run at plan time; the refusal says " +
    "why",
  async () => {
    const planning = (await p.service.capture()).plan({
      adapter: "v8-cpu",
      workload: "fake_node",
      containment: "trusted_local",
    });
    await expect(planning).rejects.toMatchObject({ code: "CAPABILITY_UNAVAILABLE" });
    await expect(planning).rejects.toThrow(
      /project executable, whose version is probed only inside managed containment/,
    );
    expect(existsSync(marker)).toBe(false);
  },
);

test(
  "managed: the version probe runs inside the sandbox, where the project is " + "read-only",
  async () => {
    const capture = await p.service.capture();
    let preview: Awaited<ReturnType<typeof capture.plan>>;
    try {
      preview = await capture.plan({
        adapter: "v8-cpu",
        workload: "fake_node",
        containment: "managed",
      });
    } catch (error) {
      // Only a host without a working sandbox may refuse, and then nothing ran either.
      expect(error).toMatchObject({ code: "CONTAINMENT_UNAVAILABLE" });
      expect(existsSync(marker)).toBe(false);
      return;
    }
    // The plan exists only because the sandboxed probe printed a Node.js version.
    expect(preview.containment).toMatchObject({ mode: "managed", state: "contained" });
    expect(existsSync(marker)).toBe(false);
  },
);
