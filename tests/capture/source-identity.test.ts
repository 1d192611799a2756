/**
 * Source identity is a preview: nothing the repository configures may run while it is
 * computed. A repository configures a clean filter, a process filter, a textconv diff
 * driver, an external diff, an fsmonitor hook and hooks, each of which would leave a
 * marker file; computing the identity of a dirty working tree leaves none. Changes are
 * still told apart: content, mode, deletion, staged additions and untracked files.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { sourceIdentity } from "../../src/application/capture/source-identity.ts";
import { tempDir } from "../helpers.ts";
import { git } from "./capture-helpers.ts";

const PATH = process.env.PATH ?? "/usr/bin:/bin";
let dir: ReturnType<typeof tempDir>;
let root: string;
let markers: string;
let cleanConfig: string;

beforeEach(() => {
  dir = tempDir("flameox-source-");
  root = join(dir.path, "repo");
  markers = join(dir.path, "markers");
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(markers);
  writeFileSync(join(root, "src", "main.txt"), "hello\n");
  writeFileSync(join(root, "run.sh"), "#!/bin/sh\necho run\n");
  chmodSync(join(root, "run.sh"), 0o755);
  symlinkSync("src/main.txt", join(root, "link"));
  git(
    root,
    ["init", "-q"],
    ["add", "-A"],
    ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "init"],
  );
  // Configured after the commit, as a hostile checkout would arrive.
  const mark = (name: string) => `"sh -c 'touch ${join(markers, name)}; cat'"`;
  cleanConfig = readFileSync(join(root, ".git", "config"), "utf8");
  writeFileSync(join(root, ".gitattributes"), "*.txt filter=evil diff=evil\n");
  writeFileSync(join(root, ".git", "info", "attributes"), "*.sh filter=evil2\n");
  appendFileSync(
    join(root, ".git", "config"),
    [
      '[filter "evil"]',
      `\tclean = ${mark("clean")}`,
      `\tsmudge = ${mark("smudge")}`,
      '[filter "evil2"]',
      `\tprocess = ${mark("process")}`,
      "\trequired = true",
      '[diff "evil"]',
      `\ttextconv = ${mark("textconv")}`,
      `\tcommand = ${mark("diff-driver")}`,
      "[diff]",
      `\texternal = ${mark("external")}`,
      "[core]",
      `\tfsmonitor = ${join(markers, "..", "fsmonitor.sh")}`,
      `\thooksPath = ${join(dir.path, "hooks")}`,
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir.path, "fsmonitor.sh"), `#!/bin/sh\ntouch ${join(markers, "fsmonitor")}\n`);
  chmodSync(join(dir.path, "fsmonitor.sh"), 0o755);
  mkdirSync(join(dir.path, "hooks"));
  for (const hook of ["post-index-change", "reference-transaction", "post-checkout"]) {
    writeFileSync(join(dir.path, "hooks", hook), `#!/bin/sh\ntouch ${join(markers, hook)}\n`);
    chmodSync(join(dir.path, "hooks", hook), 0o755);
  }
});

afterEach(() => dir.cleanup());

describe("source identity runs nothing from the repository", () => {
  test(
    "a dirty tree with filters, textconv, external diff, fsmonitor and hooks configured: no " +
      "configured program runs",
    async () => {
      writeFileSync(join(root, "src", "main.txt"), "edited\n");
      writeFileSync(join(root, "run.sh"), "#!/bin/sh\necho edited\n");
      const identity = await sourceIdentity(root, PATH);
      expect(readdirSync(markers)).toEqual([]);
      expect(identity).toMatchObject({
        repository: "git",
        identity_quality: "exact",
        missing_fields: [],
      });
      expect(identity.diff_bytes).toBe("edited\n".length + "#!/bin/sh\necho edited\n".length);
    },
  );

  test(
    "identical bytes are clean; content, mode, deletion, staging and untracked files each " +
      "change the identity",
    async () => {
      // Plain git is used below to stage a file, so the hostile configuration goes first.
      rmSync(join(root, ".gitattributes"));
      rmSync(join(root, ".git", "info", "attributes"));
      writeFileSync(join(root, ".git", "config"), cleanConfig);
      const clean = await sourceIdentity(root, PATH);
      expect(clean.identity_quality).toBe("clean");
      expect(clean.head_commit).toMatch(/^[0-9a-f]{40}$/);
      const seen = new Set([clean.source_state_id]);
      const step = async (change: () => void) => {
        change();
        const now = await sourceIdentity(root, PATH);
        expect(now.identity_quality).toBe("exact");
        expect(seen.has(now.source_state_id)).toBe(false);
        seen.add(now.source_state_id);
      };
      // Same size, and the modification time set back: the index's cached stat data must not hide
      // it.
      await step(() => {
        const before = statSync(join(root, "src", "main.txt"));
        writeFileSync(join(root, "src", "main.txt"), "hellO\n");
        utimesSync(join(root, "src", "main.txt"), before.atime, before.mtime);
      });
      await step(() => chmodSync(join(root, "src", "main.txt"), 0o755));
      await step(() => unlinkSync(join(root, "run.sh")));
      await step(() => {
        writeFileSync(join(root, "staged.txt"), "new\n");
        git(root, ["add", "staged.txt"]);
      });
      await step(() => writeFileSync(join(root, "untracked.txt"), "input\n"));
      expect(readdirSync(markers)).toEqual([]);
      expect(existsSync(join(root, ".diagnostics"))).toBe(false);
    },
  );
});
