/**
 * Source identity of the project: git HEAD, a digest of the tracked files that differ
 * from HEAD, and a digest of the untracked input files. Planning is a preview, so nothing
 * the repository configures may run: git is asked only plumbing questions that never
 * apply attributes or configured programs (`rev-parse`, `ls-tree`, `ls-files`), and the
 * working tree is compared with HEAD here, by hashing each file's raw bytes as a git blob.
 * No clean/smudge filter, textconv, diff driver, fsmonitor or hook can run. The price:
 * a file that git would call unchanged only after a filter or end-of-line conversion
 * counts as changed. Without git, or past a bound, the identity is partial and says why.
 */
import { closeSync, fstatSync, lstatSync, openSync, readlinkSync, readSync } from "node:fs";
import { join } from "node:path";
import { digestOf } from "../../domain/canonical-digest.ts";
import type { SourceIdentity } from "../../domain/identity.ts";
import { resolveExecutable } from "../../broker/executable-resolver.ts";
import { runProcess } from "../../broker/process-broker.ts";
import { hashFile } from "../../broker/executable-digest.ts";

const MAX_UNTRACKED_FILES = 10_000;
const MAX_UNTRACKED_BYTES = 256 * 1024 * 1024;
const MAX_TRACKED_BYTES = 1024 * 1024 * 1024;
const GIT_TIMEOUT_MS = 30_000;
/**
 * Belt and braces: the plumbing used here runs none of these, but no configured program may run
 * even if it did.
 */
const SAFE_CONFIG = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "diff.external=",
  "-c",
  "core.pager=cat",
  "-c",
  "core.untrackedCache=false",
];
const WORKSPACE_PREFIX = ".diagnostics/";
const GITLINK = "160000";

interface TreeEntry {
  mode: string;
  oid: string;
}

export async function sourceIdentity(
  projectRoot: string,
  childPath: string | undefined,
): Promise<SourceIdentity> {
  const missing: string[] = [];
  const reasons: string[] = [];
  const partial = (field: string, why: string) => (missing.push(field), reasons.push(why));
  let git: string;
  try {
    git = resolveExecutable({
      command: "git",
      cwd: projectRoot,
      projectRoot,
      path: childPath,
    }).path;
  } catch {
    partial("repository", "git is not installed on the child PATH");
    return finish({ repository: null, head: null, diff: null, untracked: null }, missing, reasons);
  }
  const env = {
    PATH: childPath ?? "",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    LC_ALL: "C",
  };
  const run = (args: string[]) =>
    runProcess({
      argv: [git, ...SAFE_CONFIG, ...args],
      cwd: projectRoot,
      env,
      deadlineAt: Date.now() + GIT_TIMEOUT_MS,
      maxOutputBytes: 64 * 1024 * 1024,
      maxStderrBytes: 64 * 1024,
    });
  const ok = (r: Awaited<ReturnType<typeof run>>) =>
    r.termination.kind === "exited" && r.termination.exitCode === 0 && !r.stdoutTruncated;

  const head = await run(["rev-parse", "--verify", "HEAD"]);
  if (!ok(head)) {
    const notRepo = /not a git repository/i.test(head.stderr);
    partial(
      notRepo ? "repository" : "head_commit",
      notRepo ? "the project is not in a git repository" : "the repository has no commit at HEAD",
    );
    return finish(
      { repository: notRepo ? null : "git", head: null, diff: null, untracked: null },
      missing,
      reasons,
    );
  }
  // Paths are relative to the project root (git's cwd), limited to it, like the untracked list.
  const [repo, tree, index] = [
    await run(["rev-parse", "--show-object-format", "--absolute-git-dir"]),
    await run(["ls-tree", "-r", "-z", "HEAD"]),
    await run(["ls-files", "--stage", "--debug", "-z"]),
  ];
  let diff: { digest: string; bytes: number; count: number } | null = null;
  if (!ok(tree) || !ok(index))
    partial(
      "diff_digest",
      `the tracked files could not be ` +
        `listed: ${(tree.stderr || index.stderr).trim().split("\n")[0] ?? "unknown error"}`,
    );
  else {
    const [format, gitDir] = ok(repo) ? repo.stdout.trim().split("\n") : [];
    const algorithm = format === "sha256" ? "sha256" : "sha1";
    const indexWritten = gitDir
      ? (lstatSync(join(gitDir, "index"), { throwIfNoEntry: false, bigint: true })?.mtimeNs ?? null)
      : null;
    diff = trackedChanges(
      projectRoot,
      parseTree(tree.stdout),
      parseIndex(index.stdout),
      indexWritten,
      algorithm,
      (why) => partial("diff_digest", why),
    );
  }
  const listed = await run(["ls-files", "--others", "--exclude-standard", "-z"]);
  let untracked: { count: number; digest: string } | null = null;
  if (!ok(listed)) {
    partial("untracked_digest", "the untracked file list could not be read in full");
  } else {
    const files = listed.stdout
      .split("\u0000")
      .filter((p) => p && !p.startsWith(WORKSPACE_PREFIX))
      .sort();
    untracked = hashUntracked(projectRoot, files, (why) => partial("untracked_digest", why));
  }
  return finish({ repository: "git", head: head.stdout.trim(), diff, untracked }, missing, reasons);
}

/** `ls-tree -r -z` records: "<mode> <type> <oid>\t<path>". */
function parseTree(text: string): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  for (const record of text.split("\u0000")) {
    const tab = record.indexOf("\t");
    if (tab < 0) continue;
    const [mode, , oid] = record.slice(0, tab).split(" ");
    const path = record.slice(tab + 1);
    if (mode && oid && !path.startsWith(WORKSPACE_PREFIX)) out.set(path, { mode, oid });
  }
  return out;
}

interface IndexEntry {
  mode: string;
  oid: string;
  /**
   * The stat data git cached for the entry (32-bit fields, as stored), when `--debug` could be
   * read.
   */
  stat: { ctime: string; mtime: string; ino: number; size: number } | null;
}

/**
 * `ls-files --stage --debug -z` records: "<mode> <oid> <stage>\t<path>\0" followed by the
 * cached stat data. The debug layout is not a stable interface: if it does not parse, the
 * entries carry no stat data and every file is hashed (slower, equally exact).
 */
function parseIndex(text: string): Map<string, IndexEntry> {
  const record = /(?:^|[\0\n])(\d{6}) ([0-9a-f]+) \d\t([^\0]*)\0/g;
  const withStat =
    /(\d{6}) ([0-9a-f]+) \d\t([^\0]*)\0 {2}ctime: (\d+):(\d+)\n {2}mtime: (\d+):(\d+)\n {2}dev: \d+\tino: (\d+)\n {2}uid: \d+\tgid: \d+\n {2}size: (\d+)\tflags: [0-9a-f]+\n/g;
  const records = [...text.matchAll(record)];
  const stats = [...text.matchAll(withStat)];
  const out = new Map<string, IndexEntry>();
  const readable = stats.length === records.length;
  for (const m of readable ? stats : records) {
    if (m[3]!.startsWith(WORKSPACE_PREFIX)) continue;
    const stat = readable
      ? {
          ctime: `${m[4]}:${m[5]}`,
          mtime: `${m[6]}:${m[7]}`,
          ino: Number(m[8]),
          size: Number(m[9]),
        }
      : null;
    out.set(m[3]!, { mode: m[1]!, oid: m[2]!, stat });
  }
  return out;
}

/**
 * Compares every tracked path (in HEAD or in the index) with the working tree. A path
 * whose working-tree blob id and mode equal HEAD's is unchanged; every other one is
 * listed with both sides, and the sorted list is the tracked-change digest.
 */
function trackedChanges(
  root: string,
  head: Map<string, TreeEntry>,
  index: Map<string, IndexEntry>,
  indexWritten: bigint | null,
  algorithm: "sha1" | "sha256",
  partial: (why: string) => void,
): { digest: string; bytes: number; count: number } | null {
  const paths = [...new Set([...head.keys(), ...index.keys()])].sort();
  const changed: { path: string; head: TreeEntry | null; worktree: TreeEntry | null }[] = [];
  let hashed = 0;
  let changedBytes = 0;
  for (const path of paths) {
    const before = head.get(path) ?? null;
    // A submodule's working tree is its own repository; its recorded commit stands for it.
    const staged = index.get(path);
    if (before?.mode === GITLINK || staged?.mode === GITLINK) {
      if (!before) changed.push({ path, head: null, worktree: { mode: GITLINK, oid: "" } });
      continue;
    }
    // Git's own shortcut, without git: an entry staged as HEAD has it, whose file still has
    // the cached stat data and was not written in the same instant as the index, is unchanged.
    if (
      before &&
      staged &&
      staged.oid === before.oid &&
      staged.mode === before.mode &&
      statUnchanged(join(root, path), staged, indexWritten)
    )
      continue;
    const now = worktreeBlob(join(root, path), algorithm);
    if (now) hashed += now.size;
    if (hashed > MAX_TRACKED_BYTES)
      return (partial(`tracked files exceed ${MAX_TRACKED_BYTES} bytes`), null);
    const after = now ? { mode: now.mode, oid: now.oid } : null;
    if (before && after && before.mode === after.mode && before.oid === after.oid) continue;
    changed.push({ path, head: before, worktree: after });
    changedBytes += now?.size ?? 0;
  }
  return { digest: digestOf(changed), bytes: changedBytes, count: changed.length };
}

/**
 * The file's ctime, mtime, inode and size equal the index's (as 32-bit fields), and it is older
 * than the index file (not racily clean).
 */
function statUnchanged(full: string, entry: IndexEntry, indexWritten: bigint | null): boolean {
  if (!entry.stat || indexWritten === null) return false;
  const info = lstatSync(full, { throwIfNoEntry: false, bigint: true });
  if (!info?.isFile() || info.mtimeNs >= indexWritten) return false;
  const mode = (info.mode & 0o111n) !== 0n ? "100755" : "100644";
  const u32 = (n: bigint) => Number(n & 0xffffffffn);
  const time = (ns: bigint) => `${u32(ns / 1_000_000_000n)}:${Number(ns % 1_000_000_000n)}`;
  return (
    mode === entry.mode &&
    time(info.ctimeNs) === entry.stat.ctime &&
    time(info.mtimeNs) === entry.stat.mtime &&
    u32(info.ino) === entry.stat.ino &&
    u32(info.size) === entry.stat.size
  );
}

const blobCache = new Map<string, { key: string; oid: string }>();

/**
 * The git blob id and mode of a working-tree path, hashed from its raw bytes (cached by file
 * identity); null when absent.
 */
function worktreeBlob(
  full: string,
  algorithm: "sha1" | "sha256",
): { mode: string; oid: string; size: number } | null {
  const info = lstatSync(full, { throwIfNoEntry: false, bigint: true });
  if (!info) return null;
  if (info.isSymbolicLink()) {
    const target = Buffer.from(readlinkSync(full, { encoding: "buffer" }));
    return { mode: "120000", oid: blobId([target], target.length, algorithm), size: target.length };
  }
  if (!info.isFile()) return null;
  const mode = (info.mode & 0o111n) !== 0n ? "100755" : "100644";
  const key = `${algorithm}:${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  const hit = blobCache.get(full);
  if (hit?.key === key) return { mode, oid: hit.oid, size: Number(info.size) };
  const oid = hashBlobFile(full, algorithm);
  blobCache.set(full, { key, oid });
  return { mode, oid, size: Number(info.size) };
}

/**
 * Streams a file through the blob hash; the header takes the size from fstat, so a file changing
 * while read hashes to an id that matches nothing.
 */
function hashBlobFile(path: string, algorithm: "sha1" | "sha256"): string {
  const fd = openSync(path, "r");
  try {
    const hasher = new Bun.CryptoHasher(algorithm);
    hasher.update(`blob ${fstatSync(fd).size}\u0000`);
    const buffer = new Uint8Array(1 << 20);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer))
      hasher.update(buffer.subarray(0, n));
    return hasher.digest("hex");
  } finally {
    closeSync(fd);
  }
}

function blobId(parts: Uint8Array[], size: number, algorithm: "sha1" | "sha256"): string {
  const hasher = new Bun.CryptoHasher(algorithm);
  hasher.update(`blob ${size}\u0000`);
  for (const part of parts) hasher.update(part);
  return hasher.digest("hex");
}

function hashUntracked(
  root: string,
  files: string[],
  partial: (why: string) => void,
): { count: number; digest: string } | null {
  if (files.length > MAX_UNTRACKED_FILES)
    return (partial(`more than ${MAX_UNTRACKED_FILES} untracked files`), null);
  let bytes = 0;
  const entries: { path: string; sha256?: string; link?: string }[] = [];
  for (const path of files) {
    const full = join(root, path);
    const info = lstatSync(full, { throwIfNoEntry: false });
    if (!info) continue;
    if (info.isSymbolicLink()) entries.push({ path, link: readlinkSync(full) });
    else if (info.isFile()) {
      bytes += info.size;
      if (bytes > MAX_UNTRACKED_BYTES)
        return (partial(`untracked files exceed ${MAX_UNTRACKED_BYTES} bytes`), null);
      entries.push({ path, sha256: hashFile(full) });
    }
  }
  return { count: entries.length, digest: digestOf(entries) };
}

function finish(
  found: {
    repository: "git" | null;
    head: string | null;
    diff: { digest: string; bytes: number; count: number } | null;
    untracked: { count: number; digest: string } | null;
  },
  missing: string[],
  reasons: string[],
): SourceIdentity {
  const fields = {
    repository: found.repository,
    head_commit: found.head,
    diff_digest: found.diff?.digest ?? null,
    untracked_digest: found.untracked?.digest ?? null,
  };
  const clean = missing.length === 0 && found.diff?.count === 0 && found.untracked?.count === 0;
  return {
    source_state_id: digestOf({ ...fields, missing_fields: [...new Set(missing)].sort() }),
    identity_quality: missing.length > 0 ? "partial" : clean ? "clean" : "exact",
    repository: found.repository,
    head_commit: found.head,
    diff_digest: fields.diff_digest,
    diff_bytes: found.diff?.bytes ?? null,
    untracked_files: found.untracked?.count ?? null,
    untracked_digest: fields.untracked_digest,
    missing_fields: [...new Set(missing)],
    reasons,
  };
}
