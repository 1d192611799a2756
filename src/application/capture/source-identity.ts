/**
 * Source identity of the project: git HEAD, a digest of `git diff --binary HEAD`
 * (tracked changes) and of the untracked input files. git runs through the broker with
 * a minimal environment, no global or system config, and external diff drivers,
 * textconv filters and fsmonitor hooks switched off, so reading the source runs none
 * of the repository's configured programs. Without git, or past a bound, the identity
 * is partial and says why.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { digestOf } from "../../domain/canonical-digest.ts";
import type { SourceIdentity } from "../../domain/identity.ts";
import { resolveExecutable } from "../../broker/executable-resolver.ts";
import { runProcess } from "../../broker/process-broker.ts";
import { hashFile } from "../../broker/executable-digest.ts";

const MAX_UNTRACKED_FILES = 10_000;
const MAX_UNTRACKED_BYTES = 256 * 1024 * 1024;
const GIT_TIMEOUT_MS = 30_000;
const SAFE_CONFIG = ["-c", "core.fsmonitor=false", "-c", "diff.external=", "-c", "core.pager=cat"];
const NOT_WORKSPACE = ":(exclude).diagnostics";

export async function sourceIdentity(projectRoot: string, childPath: string | undefined): Promise<SourceIdentity> {
  const missing: string[] = [];
  const reasons: string[] = [];
  const partial = (field: string, why: string) => (missing.push(field), reasons.push(why));
  let git: string;
  try {
    git = resolveExecutable({ command: "git", cwd: projectRoot, projectRoot, path: childPath }).path;
  } catch {
    partial("repository", "git is not installed on the child PATH");
    return finish({ repository: null, head: null, diff: null, untracked: null }, missing, reasons);
  }
  const env = { PATH: childPath ?? "", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C" };
  const run = (args: string[], stdout: "memory" | "digest") =>
    runProcess({ argv: [git, ...SAFE_CONFIG, ...args], cwd: projectRoot, env, deadlineAt: Date.now() + GIT_TIMEOUT_MS, maxOutputBytes: 4 * 1024 * 1024, stdout: { kind: stdout } });

  const head = await run(["rev-parse", "--verify", "HEAD"], "memory");
  if (head.termination.kind !== "exited" || head.termination.exitCode !== 0) {
    const notRepo = /not a git repository/i.test(head.stderr);
    partial(notRepo ? "repository" : "head_commit", notRepo ? "the project is not in a git repository" : "the repository has no commit at HEAD");
    return finish({ repository: notRepo ? null : "git", head: null, diff: null, untracked: null }, missing, reasons);
  }
  const diff = await run(["diff", "--binary", "--no-ext-diff", "--no-textconv", "HEAD", "--", ".", NOT_WORKSPACE], "digest");
  const diffOk = diff.termination.kind === "exited" && diff.termination.exitCode === 0;
  if (!diffOk) partial("diff_digest", `git diff failed: ${diff.stderr.trim().split("\n")[0] ?? "unknown error"}`);
  const listed = await run(["ls-files", "--others", "--exclude-standard", "-z", "--", ".", NOT_WORKSPACE], "memory");
  let untracked: { count: number; digest: string } | null = null;
  if (listed.termination.kind !== "exited" || listed.termination.exitCode !== 0 || listed.stdoutTruncated) {
    partial("untracked_digest", "the untracked file list could not be read in full");
  } else {
    const files = listed.stdout.split("\u0000").filter(Boolean).sort();
    untracked = hashUntracked(projectRoot, files, (why) => partial("untracked_digest", why));
  }
  return finish(
    {
      repository: "git",
      head: head.stdout.trim(),
      diff: diffOk ? { digest: `sha256:${diff.output.stdout.sha256Hex}`, bytes: diff.output.stdout.seenBytes } : null,
      untracked,
    },
    missing,
    reasons,
  );
}

function hashUntracked(root: string, files: string[], partial: (why: string) => void): { count: number; digest: string } | null {
  if (files.length > MAX_UNTRACKED_FILES) return partial(`more than ${MAX_UNTRACKED_FILES} untracked files`), null;
  let bytes = 0;
  const entries: { path: string; sha256?: string; link?: string }[] = [];
  for (const path of files) {
    const full = join(root, path);
    const info = lstatSync(full, { throwIfNoEntry: false });
    if (!info) continue;
    if (info.isSymbolicLink()) entries.push({ path, link: readlinkSync(full) });
    else if (info.isFile()) {
      bytes += info.size;
      if (bytes > MAX_UNTRACKED_BYTES) return partial(`untracked files exceed ${MAX_UNTRACKED_BYTES} bytes`), null;
      entries.push({ path, sha256: hashFile(full) });
    }
  }
  return { count: entries.length, digest: digestOf(entries) };
}

function finish(
  found: { repository: "git" | null; head: string | null; diff: { digest: string; bytes: number } | null; untracked: { count: number; digest: string } | null },
  missing: string[],
  reasons: string[],
): SourceIdentity {
  const fields = { repository: found.repository, head_commit: found.head, diff_digest: found.diff?.digest ?? null, untracked_digest: found.untracked?.digest ?? null };
  const clean = missing.length === 0 && found.diff?.bytes === 0 && found.untracked?.count === 0;
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
