/**
 * The import fence: which files an agent may ask flameox to import. Only paths under
 * the project root (`source_root: "project"`, relative paths resolve against the root)
 * or under the system temp directory (`source_root: "temp"`) pass, and only when no
 * component below that root is a symbolic link and the file has no other hard link. The workspace's
 * own `.diagnostics/` is
 * off limits. On Linux the parent directory is then pinned by a descriptor, so a
 * directory swapped in after the check cannot redirect the open; the import itself
 * opens the file with O_NOFOLLOW, requires a regular file and rechecks identity and size.
 */
import { constants, existsSync, type Stats } from "node:fs";
import { lstat, open, realpath, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { FlameoxError } from "../domain/errors.ts";
import type { ImportRequest, ImportResult } from "./import-artifact.ts";

export type SourceRoot = "project" | "temp";

export interface FencedPath {
  /** The path the import opens: pinned through the parent's descriptor where possible. */
  openPath: string;
  /** The caller's path relative to its root, for names and messages (never a host path). */
  displayPath: string;
  /** Closes the pinned parent directory; call once the import is over. */
  release(): Promise<void>;
}

const MAX_PATH_CHARS = 4096;
const WORKSPACE_DIR = ".diagnostics";

export async function fenceImportPath(
  projectRoot: string,
  rawPath: string,
  sourceRoot: SourceRoot = "project",
): Promise<FencedPath> {
  if (rawPath.length === 0 || rawPath.length > MAX_PATH_CHARS)
    invalid(`Expected path to hold 1 to ${MAX_PATH_CHARS} characters but found ${rawPath.length}`);
  if (rawPath.includes("\0")) invalid("Cannot import a path that contains a NUL byte");
  const base = sourceRoot === "temp" ? tmpdir() : resolve(projectRoot);
  const baseReal = await realpath(base).catch(() =>
    refuse(`Cannot import: the ${rootName(sourceRoot)} ${base} does not exist`),
  );
  const components = componentsUnder(base, baseReal, rawPath, sourceRoot);
  if (sourceRoot === "project" && components[0] === WORKSPACE_DIR) {
    refuse(
      `Cannot import ${rawPath}: files inside ${WORKSPACE_DIR}/ belong to the workspace itself`,
    );
  }
  const displayPath = components.join("/");
  const walked = await walkWithoutLinks(baseReal, components, displayPath);
  const parent = join(baseReal, ...components.slice(0, -1));
  // realpath of the parent equals its lexical form only if no component is a link.
  const parentReal = await realpath(parent);
  if (parentReal !== parent || !inside(baseReal, parentReal))
    refuse(
      `Cannot import ${displayPath}: its directory resolves outside the ${rootName(sourceRoot)}`,
    );
  return pinParent(parent, walked.parent, components.at(-1)!, displayPath);
}

/** The path's components below the root, or a refusal when it leaves the root. */
function componentsUnder(
  base: string,
  baseReal: string,
  rawPath: string,
  sourceRoot: SourceRoot,
): string[] {
  const lexical = isAbsolute(rawPath) ? resolve(rawPath) : resolve(base, rawPath);
  // An absolute path may name the root by its lexical or its canonical spelling.
  for (const root of [base, baseReal]) {
    const rel = relative(root, lexical);
    if (rel === "")
      invalid(`Cannot import ${rawPath}: it names the ${rootName(sourceRoot)} itself, not a file`);
    if (inside(root, lexical)) return rel.split(sep);
  }
  return refuse(`Cannot import ${rawPath}: it lies outside the ${rootName(sourceRoot)}`, [
    sourceRoot === "project"
      ? 'Copy the file under the project root, or pass source_root "temp" for a file in the ' +
        "system temp directory"
      : 'Pass source_root "project" for a file under the project root',
  ]);
}

/** lstat of every component from the root down; any symbolic link refuses the import. */
async function walkWithoutLinks(
  baseReal: string,
  components: string[],
  displayPath: string,
): Promise<{ parent: Stats }> {
  let current = baseReal;
  let parent = await lstat(baseReal);
  for (const [index, name] of components.entries()) {
    current = join(current, name);
    const info = await lstat(current).catch((error: NodeJS.ErrnoException) =>
      error.code === "ENOENT"
        ? invalid(`Cannot import ${displayPath}: no such file`)
        : refuse(`Cannot import ${displayPath}: ${error.code ?? error.message}`),
    );
    const shown = components.slice(0, index + 1).join("/");
    if (info.isSymbolicLink())
      refuse(`Cannot import ${displayPath}: ${shown} is a symbolic link`, [
        "Import the target file itself, by a path without links",
      ]);
    const last = index === components.length - 1;
    if (!last && !info.isDirectory())
      invalid(`Cannot import ${displayPath}: ${shown} is not a directory`);
    if (last && !info.isFile())
      refuse(
        `Cannot import ${displayPath}: it is ${kindOf(info)}; only regular files are imported`,
      );
    // A hard link is the same file under another name, possibly outside the root (a
    // private key linked into the project): the name inside proves nothing about it.
    if (last && info.nlink > 1)
      refuse(
        `Cannot import ${displayPath}: it has ${info.nlink} hard links, so the same file may ` +
          `also have a name outside the allowed root`,
        ["Import a copy of the file (cp makes one with a single link)"],
      );
    if (!last) parent = info;
  }
  return { parent };
}

async function pinParent(
  parent: string,
  expected: Stats,
  name: string,
  displayPath: string,
): Promise<FencedPath> {
  let handle: FileHandle;
  try {
    handle = await open(parent, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return refuse(`Cannot import ${displayPath}: its directory changed while it was being checked`);
  }
  const release = () => handle.close().catch(() => {});
  const opened = await handle.stat();
  if (opened.ino !== expected.ino || opened.dev !== expected.dev) {
    await release();
    refuse(`Cannot import ${displayPath}: its directory was replaced while it was being checked`);
  }
  const viaDescriptor = `/proc/self/fd/${handle.fd}`;
  const pinned = process.platform === "linux" && existsSync(viaDescriptor);
  return {
    openPath: pinned ? join(viaDescriptor, name) : join(parent, name),
    displayPath,
    release,
  };
}

/** Imports `request.path` only if it passes the fence; the pinned parent is released afterwards. */
export async function importWithinFence(
  projectRoot: string,
  request: ImportRequest & { sourceRoot?: SourceRoot },
  importer: (request: ImportRequest, displayPath: string) => Promise<ImportResult>,
): Promise<ImportResult> {
  const { sourceRoot, ...rest } = request;
  const fenced = await fenceImportPath(projectRoot, request.path, sourceRoot);
  try {
    return await importer(
      {
        ...rest,
        path: fenced.openPath,
        displayName: rest.displayName ?? basename(fenced.displayPath),
      },
      fenced.displayPath,
    );
  } catch (error) {
    throw renameFailure(error, fenced);
  } finally {
    await fenced.release();
  }
}

/**
 * Rewrites a failure that names the pinned descriptor path so it names the caller's path instead.
 */
export function renameFailure(error: unknown, fenced: FencedPath): unknown {
  if (!(error instanceof FlameoxError) || !error.message.includes(fenced.openPath)) return error;
  return new FlameoxError(
    error.code,
    error.message.split(fenced.openPath).join(fenced.displayPath),
    {
      remediation: error.remediation,
      details: { ...error.details, field: "path" },
      runId: error.runId,
    },
  );
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return "a FIFO";
  if (info.isDirectory()) return "a directory";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "not a regular file";
}

const rootName = (sourceRoot: SourceRoot) =>
  sourceRoot === "temp" ? "system temp directory" : "project root";

function invalid(message: string): never {
  throw new FlameoxError("INVALID_ARGUMENTS", message, { details: { field: "path" } });
}

function refuse(message: string, remediation: string[] = []): never {
  throw new FlameoxError("ARTIFACT_REFUSED", message, { details: { field: "path" }, remediation });
}
