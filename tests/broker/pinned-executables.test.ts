/**
 * The bytes that run are the bytes that were checked: a file renamed over a bound
 * executable after its check (and before the spawn) does not run; a swap before the
 * check is refused with EXECUTABLE_CHANGED before anything starts.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  bubblewrapArgv,
  privateDirectories,
  TRUSTED_BWRAP_PATHS,
} from "../../src/broker/containment.ts";
import { resolveExecutable } from "../../src/broker/executable-resolver.ts";
import { PinnedExecutables } from "../../src/broker/pinned-executables.ts";
import { runProcess } from "../../src/broker/process-broker.ts";
import { tempDir } from "../helpers.ts";

let dir: ReturnType<typeof tempDir>;
let tool: string;
const marker = () => join(dir.path, "evil-ran");
const BWRAP = TRUSTED_BWRAP_PATHS.find((p) => existsSync(p)) ?? null;

beforeEach(() => {
  dir = tempDir("flameox-pin-");
  mkdirSync(join(dir.path, "bin"));
  tool = join(dir.path, "bin", "tool");
  writeFileSync(tool, "#!/bin/sh\necho checked\n");
  chmodSync(tool, 0o755);
  writeFileSync(join(dir.path, "evil"), `#!/bin/sh\ntouch ${marker()}\necho evil\n`);
  chmodSync(join(dir.path, "evil"), 0o755);
});
afterEach(() => dir.cleanup());

const bind = () =>
  resolveExecutable({
    command: "./bin/tool",
    cwd: dir.path,
    projectRoot: dir.path,
    path: "/usr/bin:/bin",
  });
const swap = () => renameSync(join(dir.path, "evil"), tool);

test(
  "a file renamed over the executable between the check and the spawn does not " + "run",
  async () => {
    const bound = bind();
    const pins = PinnedExecutables.open([bound]);
    swap();
    const argv = pins.rewrite([bound.path]);
    expect(argv[0]).toBe("/proc/self/fd/3");
    const child = Bun.spawn(argv, { stdio: ["ignore", "pipe", "pipe", ...pins.descriptors] });
    pins.close();
    expect((await new Response(child.stdout).text()).trim()).toBe("checked");
    expect(existsSync(marker())).toBe(false);
  },
);

test(
  "the broker verifies at spawn time: a swap before it is EXECUTABLE_CHANGED and " +
    "nothing starts",
  async () => {
    const bound = bind();
    swap();
    await expect(
      runProcess({
        argv: [bound.path],
        pinned: [bound],
        cwd: dir.path,
        env: { PATH: "/usr/bin:/bin" },
        deadlineAt: Date.now() + 10_000,
        maxOutputBytes: 1024,
      }),
    ).rejects.toMatchObject({ code: "EXECUTABLE_CHANGED" });
    expect(existsSync(marker())).toBe(false);
  },
);

test(
  "a pinned ELF program executes through its descriptor and still sees its own path as " +
    "argv[0]",
  async () => {
    const sh = resolveExecutable({
      command: "sh",
      cwd: dir.path,
      projectRoot: dir.path,
      path: "/usr/bin:/bin",
    });
    const result = await runProcess({
      argv: [sh.path, "-c", 'echo "$0"; ls -l /proc/$$/exe'],
      pinned: [sh],
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin" },
      deadlineAt: Date.now() + 10_000,
      maxOutputBytes: 4096,
    });
    const [argv0, exe] = result.stdout.trim().split("\n");
    expect(argv0).toBe(sh.path);
    expect(exe).toContain(sh.canonical_path);
  },
);

test.skipIf(!BWRAP)(
  "inside the managed sandbox the descriptor is inherited and executed",
  async () => {
    const bound = bind();
    const layout = {
      projectRoot: dir.path,
      diagnosticsDir: join(dir.path, ".diagnostics"),
      writableRoots: [],
      outputDir: join(dir.path, ".diagnostics", "out"),
      cwd: dir.path,
      privateDirs: privateDirectories(process.env.HOME),
    };
    mkdirSync(layout.outputDir, { recursive: true });
    const result = await runProcess({
      argv: bubblewrapArgv(BWRAP!, layout, [bound.path]),
      pinned: [bound],
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin" },
      deadlineAt: Date.now() + 10_000,
      maxOutputBytes: 1024,
    });
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("checked");
  },
);
