/**
 * Project directories a capture uses: the workload's cwd and its declared writable
 * roots, canonicalized and required to stay beneath the canonical project root and out
 * of the workspace store. Lexical checks already happened when the file was parsed;
 * these catch symbolic links. A writable root may neither be nor contain a version-control
 * or hook directory: what a sandboxed workload writes there (a git hook, a config with a
 * filter command) would run later, outside any sandbox.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";

/** Directories whose contents version-control tools or hook managers execute or obey. */
export const CONTROL_DIRECTORIES = [
  ".git",
  ".hg",
  ".svn",
  ".bzr",
  "_darcs",
  "CVS",
  ".jj",
  ".pijul",
  ".husky",
  ".githooks",
];
/** How many entries a writable root may hold before it is refused as too large to check. */
const MAX_SCANNED_ENTRIES = 200_000;
import { FlameoxError } from "../../domain/errors.ts";

export function projectDirectory(projectRoot: string, relativePath: string): string {
  const root = realpathSync(projectRoot);
  let real: string;
  try {
    real = realpathSync(join(projectRoot, relativePath));
  } catch {
    throw refuse(relativePath, "it does not exist");
  }
  if (!statSync(real).isDirectory()) throw refuse(relativePath, "it is not a directory");
  checkInside(root, real, relativePath);
  return real;
}

/**
 * Canonical absolute writable roots; a root that does not exist yet is named lexically and created
 * at execution.
 */
export function writableRoots(projectRoot: string, paths: string[]): string[] {
  const root = realpathSync(projectRoot);
  return paths.map((p) => {
    const lexical = join(root, p);
    if (!existsSync(lexical)) return (checkNoControlDirectory(root, lexical, p), lexical);
    const real = realpathSync(lexical);
    checkInside(root, real, p);
    checkNoControlDirectory(root, real, p);
    return real;
  });
}

/** Creates missing writable roots and checks again that each resolves inside the root. */
export function ensureWritableRoots(projectRoot: string, roots: string[]): void {
  const root = realpathSync(projectRoot);
  for (const dir of roots) {
    mkdirSync(dir, { recursive: true });
    const real = realpathSync(dir);
    checkInside(root, real, relative(root, dir));
    checkNoControlDirectory(root, real, relative(root, dir));
  }
}

function checkInside(root: string, real: string, shown: string): void {
  const rel = relative(root, real);
  if (rel.startsWith("..") || isAbsolute(rel))
    throw refuse(shown, `it resolves outside the project root (${real})`);
  if (rel === ".diagnostics" || rel.startsWith(".diagnostics/"))
    throw refuse(shown, "it resolves into the workspace store");
}

/**
 * Refuses a writable root that is, lies in, or contains a version-control or hook directory
 * (symbolic links are not followed).
 */
export function checkNoControlDirectory(root: string, dir: string, shown: string): void {
  const inside = relative(root, dir)
    .split(sep)
    .find((part) => CONTROL_DIRECTORIES.includes(part));
  if (inside)
    throw refuse(
      shown,
      `it is or lies in ${inside}, whose contents version-control tools run or obey outside ` +
        `the sandbox`,
    );
  if (!existsSync(dir)) return;
  const pending = [dir];
  let scanned = 0;
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (++scanned > MAX_SCANNED_ENTRIES)
        throw refuse(
          shown,
          `it holds more than ${MAX_SCANNED_ENTRIES} entries, too many to check for ` +
            `version-control directories`,
        );
      if (CONTROL_DIRECTORIES.includes(entry.name))
        throw refuse(
          shown,
          `it contains ${relative(root, join(current, entry.name))}, whose contents ` +
            `version-control tools run or obey outside the sandbox`,
        );
      if (entry.isDirectory()) pending.push(join(current, entry.name));
    }
  }
}

function refuse(path: string, why: string): FlameoxError {
  return new FlameoxError(
    "EXECUTION_REFUSED",
    `Cannot use project path ${JSON.stringify(path)}: ${why}`,
    {
      details: { path },
      remediation: ["Fix cwd or writable_paths of the workload in flameox.toml"],
    },
  );
}
