/**
 * Where this process's own memory cgroup lives in the file system, for cgroup v1 (the
 * `memory` hierarchy) and v2 (the unified one). A child's group must be created beneath
 * it: a group made at the hierarchy's root would sit outside any limit set on flameox's
 * caller (a container, a systemd slice, a CI job), so a worker could use memory its
 * caller was denied.
 *
 * /proc/self/cgroup names the group relative to the hierarchy's root; /proc/self/mountinfo
 * says where that hierarchy is mounted and which of its directories the mount shows
 * (a container usually sees its own group as the mount's root). Pure functions over those
 * two texts, so both versions are tested on any host.
 */
import { posix } from "node:path";

export interface OwnCgroup {
  version: 1 | 2;
  /** Absolute directory of this process's group. */
  dir: string;
}

/** The memory cgroup directory of the process described by the two texts, or null. */
export function resolveOwnMemoryCgroup(
  procCgroup: string,
  mountinfo: string,
  version: 1 | 2,
): OwnCgroup | null {
  const groupPath = ownGroupPath(procCgroup, version);
  if (groupPath === null) return null;
  for (const mount of parseMountinfo(mountinfo)) {
    const matches =
      version === 2
        ? mount.fstype === "cgroup2"
        : mount.fstype === "cgroup" && mount.superOptions.split(",").includes("memory");
    if (!matches) continue;
    const relative = relativeTo(groupPath, mount.root);
    if (relative !== null) return { version, dir: posix.join(mount.mountPoint, relative) };
  }
  return null;
}

/** The group path from /proc/self/cgroup: `0::/path` (v2) or `N:a,memory,b:/path` (v1). */
function ownGroupPath(procCgroup: string, version: 1 | 2): string | null {
  for (const line of procCgroup.split("\n")) {
    const first = line.indexOf(":");
    const second = line.indexOf(":", first + 1);
    if (first < 0 || second < 0) continue;
    const controllers = line.slice(first + 1, second);
    const path = line.slice(second + 1);
    if (
      version === 2
        ? line.slice(0, first) === "0" && controllers === ""
        : controllers.split(",").includes("memory")
    )
      return path || "/";
  }
  return null;
}

/** `path` below `root` as a relative path ("" for the root itself), or null when it is outside. */
function relativeTo(path: string, root: string): string | null {
  if (root === "/") return path.replace(/^\/+/, "");
  if (path === root) return "";
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : null;
}

interface MountEntry {
  root: string;
  mountPoint: string;
  fstype: string;
  superOptions: string;
}

/**
 * mountinfo(5):
 * `id parent major:minor root mountpoint options [optional...] - fstype source superoptions`.
 */
function parseMountinfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash < 6 || fields.length < dash + 4) continue;
    entries.push({
      root: unescapeMountField(fields[3]!),
      mountPoint: unescapeMountField(fields[4]!),
      fstype: fields[dash + 1]!,
      superOptions: fields[dash + 3]!,
    });
  }
  return entries;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}
