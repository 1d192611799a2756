/**
 * Project directories a capture uses: the workload's cwd and its declared writable
 * roots, canonicalized and required to stay beneath the canonical project root and out
 * of the workspace store. Lexical checks already happened when the file was parsed;
 * these catch symbolic links.
 */
import { existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
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

/** Canonical absolute writable roots; a root that does not exist yet is named lexically and created at execution. */
export function writableRoots(projectRoot: string, paths: string[]): string[] {
  const root = realpathSync(projectRoot);
  return paths.map((p) => {
    const lexical = join(root, p);
    if (!existsSync(lexical)) return lexical;
    const real = realpathSync(lexical);
    checkInside(root, real, p);
    return real;
  });
}

/** Creates missing writable roots and checks again that each resolves inside the root. */
export function ensureWritableRoots(projectRoot: string, roots: string[]): void {
  const root = realpathSync(projectRoot);
  for (const dir of roots) {
    mkdirSync(dir, { recursive: true });
    checkInside(root, realpathSync(dir), relative(root, dir));
  }
}

function checkInside(root: string, real: string, shown: string): void {
  const rel = relative(root, real);
  if (rel.startsWith("..") || isAbsolute(rel)) throw refuse(shown, `it resolves outside the project root (${real})`);
  if (rel === ".diagnostics" || rel.startsWith(".diagnostics/")) throw refuse(shown, "it resolves into the workspace store");
}

function refuse(path: string, why: string): FlameoxError {
  return new FlameoxError("EXECUTION_REFUSED", `Cannot use project path ${JSON.stringify(path)}: ${why}`, {
    details: { path },
    remediation: ["Fix cwd or writable_paths of the workload in flameox.toml"],
  });
}
