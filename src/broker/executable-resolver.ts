/**
 * ExecutableResolver: turns the first argv item into a ResolvedExecutable under an
 * explicit cwd, PATH and trust policy, and revalidates a binding before execution.
 *
 * - A command with a slash is project-bound: resolved against the cwd, canonicalized
 *   (every symlink followed) and required to lie beneath the canonical project root, so
 *   an in-root symlink cannot authorize an out-of-root binary. An absolute path outside
 *   the root is an exact path, taken as named.
 * - A bare name is a declared host tool: searched once on the request's PATH (absolute
 *   entries only; "." or empty entries are ignored, and so is every entry that lies in
 *   the project, so a declared PATH cannot turn a host tool into project code) and bound
 *   by path and digest. A match that resolves into the project is refused.
 * The broker executes the bound path and never searches again.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { ExecutableTrust, ResolvedExecutable } from "../domain/capture.ts";
import { WORKLOAD_PATH } from "../domain/environment-policy.ts";
import { FlameoxError } from "../domain/errors.ts";
import { digestExecutable } from "./executable-digest.ts";

export interface ResolveRequest {
  command: string;
  /** Absolute working directory the command is relative to. */
  cwd: string;
  /** Absolute project root (canonicalized here). */
  projectRoot: string;
  /** The PATH the child will get. */
  path: string | undefined;
}

export function resolveExecutable(request: ResolveRequest): ResolvedExecutable {
  const { command } = request;
  if (command.length === 0 || command.includes("\u0000"))
    throw refused(command, "the command is empty or contains a NUL byte");
  if (!command.includes("/")) {
    const found = searchPath(command, request.path, request.projectRoot);
    const root = safeRealpath(request.projectRoot);
    if (root && (within(root, safeRealpath(found) ?? found) || safeRealpath(found) === root))
      throw refused(command, `it resolves into the project (${found}); a bare name is a host tool`);
    return bind(command, found, "host_tool");
  }
  const root = canonical(request.projectRoot, command, "the project root does not exist");
  const invoked = resolve(request.cwd, command);
  const target = canonical(invoked, command, "no such file");
  if (within(root, target)) return bind(command, invoked, "project_bound");
  if (isAbsolute(command) && !within(root, invoked) && !within(request.projectRoot, invoked))
    return bind(command, invoked, "exact_path");
  throw refused(
    command,
    `it resolves to ${target}, outside the project root; a project command must stay beneath ` +
      `the root after following symbolic links`,
  );
}

/**
 * Searches PATH for a bare name; only what is a regular, executable file counts, and never in the
 * project.
 */
export function searchPath(
  name: string,
  pathVariable: string | undefined,
  projectRoot?: string,
): string {
  const root = projectRoot ? safeRealpath(projectRoot) : null;
  for (const dir of (pathVariable ?? "").split(":")) {
    if (!isAbsolute(dir)) continue;
    const real = safeRealpath(dir);
    if (root && real && (real === root || within(root, real))) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new FlameoxError("CAPABILITY_UNAVAILABLE", `Cannot find ${name} on the child PATH`, {
    details: { executable: name },
    remediation: [
      `Install ${name}, or declare the workload's PATH in its \`environment\`, or set ` +
        `execution.workload_path in .diagnostics/config.toml (by default ${WORKLOAD_PATH})`,
    ],
  });
}

/**
 * Rechecks a binding just before execution: the path must still be canonical, regular,
 * executable, and hash to the bound digest. No search happens here.
 */
export function revalidateExecutable(bound: ResolvedExecutable, projectRoot: string): void {
  const changed = (why: string) =>
    new FlameoxError(
      "EXECUTABLE_CHANGED",
      `Cannot execute ${bound.requested}: ${why} since the plan was made`,
      {
        details: { executable: bound.requested, path: bound.path },
        remediation: ["Plan the capture again to bind the executable as it is now"],
      },
    );
  let real: string;
  try {
    real = realpathSync(bound.path);
  } catch {
    throw changed(`${bound.path} no longer exists`);
  }
  if (real !== bound.canonical_path)
    throw changed(`${bound.path} now resolves to ${real}, not ${bound.canonical_path}`);
  if (!isExecutableFile(real))
    throw changed(`${bound.path} is no longer an executable regular file`);
  if (bound.trust === "project_bound" && !within(realpathSync(projectRoot), real))
    throw changed(`${bound.path} left the project root`);
  if (digestExecutable(real).sha256 !== bound.sha256)
    throw changed(`the content of ${bound.path} changed`);
}

function bind(requested: string, path: string, trust: ExecutableTrust): ResolvedExecutable {
  if (!isExecutableFile(path))
    throw refused(requested, `${path} is not an executable regular file`);
  const canonicalPath = realpathSync(path);
  const { sha256, identity } = digestExecutable(canonicalPath);
  return {
    requested,
    path,
    canonical_path: canonicalPath,
    trust,
    sha256,
    size: identity.size,
    identity,
  };
}

function safeRealpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function canonical(path: string, command: string, missing: string): string {
  try {
    return realpathSync(path);
  } catch {
    throw refused(command, missing);
  }
}

function within(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function refused(command: string, why: string): FlameoxError {
  return new FlameoxError(
    "EXECUTION_REFUSED",
    `Cannot resolve executable ${JSON.stringify(command)}: ${why}`,
    {
      details: { executable: command },
      remediation: [
        "Use a project command beneath the project root, a tool on PATH, or an absolute path " +
          "outside the project",
      ],
    },
  );
}
