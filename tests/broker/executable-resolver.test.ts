/**
 * ExecutableResolver: project-bound commands stay beneath the root after symlinks; host tools are
 * bound by path and digest.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveExecutable, revalidateExecutable } from "../../src/broker/executable-resolver.ts";
import { tempDir } from "../helpers.ts";

let project: { path: string; cleanup: () => void };
let outside: { path: string; cleanup: () => void };

function script(path: string, body = "#!/bin/sh\necho hi\n"): void {
  writeFileSync(path, body);
  chmodSync(path, 0o755);
}

beforeAll(() => {
  project = tempDir("flameox-resolve-");
  outside = tempDir("flameox-outside-");
  mkdirSync(join(project.path, "bin"));
  script(join(project.path, "bin", "tool.sh"));
  script(join(outside.path, "evil.sh"));
  symlinkSync(join(outside.path, "evil.sh"), join(project.path, "bin", "escape.sh"));
  symlinkSync("tool.sh", join(project.path, "bin", "alias.sh"));
});
afterAll(() => {
  project.cleanup();
  outside.cleanup();
});

const request = (command: string, path = "/usr/bin:/bin") => ({
  command,
  cwd: project.path,
  projectRoot: project.path,
  path,
});

describe("executable resolver", () => {
  test("a project command is bound beneath the root with its sha256", () => {
    const bound = resolveExecutable(request("./bin/tool.sh"));
    expect(bound).toMatchObject({
      trust: "project_bound",
      path: join(project.path, "bin", "tool.sh"),
    });
    expect(bound.sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  test(
    "an in-root symlink to an outside binary is refused; an in-root symlink to an in-root file " +
      "is fine",
    () => {
      expect(() => resolveExecutable(request("bin/escape.sh"))).toThrow(
        expect.objectContaining({
          code: "EXECUTION_REFUSED",
          message: expect.stringContaining("outside the project root"),
        }),
      );
      const alias = resolveExecutable(request("bin/alias.sh"));
      expect(alias.path).toBe(join(project.path, "bin", "alias.sh"));
      expect(alias.canonical_path.endsWith("/bin/tool.sh")).toBe(true);
    },
  );

  test("a bare name is searched on the request's PATH only, skipping relative entries", () => {
    expect(resolveExecutable(request("sh"))).toMatchObject({ trust: "host_tool" });
    // "." and "" on PATH would let a file in the cwd shadow a tool.
    script(join(project.path, "ls"));
    expect(() => resolveExecutable({ ...request("ls", ".::bin") })).toThrow(
      expect.objectContaining({ code: "CAPABILITY_UNAVAILABLE" }),
    );
    expect(() => resolveExecutable(request("definitely-not-a-tool-xyz"))).toThrow(
      expect.objectContaining({ code: "CAPABILITY_UNAVAILABLE" }),
    );
  });

  test("an absolute path outside the root is an exact path, taken as named", () => {
    expect(resolveExecutable(request(join(outside.path, "evil.sh")))).toMatchObject({
      trust: "exact_path",
    });
  });

  test(
    "revalidation catches changed content and a retargeted symlink, without searching " + "again",
    () => {
      const tool = join(project.path, "bin", "changing.sh");
      script(tool);
      const bound = resolveExecutable(request("./bin/changing.sh"));
      revalidateExecutable(bound, project.path);
      script(tool, "#!/bin/sh\necho changed\n");
      expect(() => revalidateExecutable(bound, project.path)).toThrow(
        expect.objectContaining({
          code: "EXECUTABLE_CHANGED",
          message: expect.stringContaining("content"),
        }),
      );

      const link = join(project.path, "bin", "moving.sh");
      symlinkSync("tool.sh", link);
      const viaLink = resolveExecutable(request("./bin/moving.sh"));
      Bun.spawnSync(["ln", "-sfn", "changing.sh", link]);
      expect(() => revalidateExecutable(viaLink, project.path)).toThrow(
        expect.objectContaining({
          code: "EXECUTABLE_CHANGED",
          message: expect.stringContaining("now resolves"),
        }),
      );
    },
  );
});
