/**
 * A flameox workspace: `.diagnostics/` under a project root. `initWorkspace` creates it
 * (idempotently), `locateWorkspace` walks up from a directory, `openWorkspace` checks
 * the identity file and schema version and opens the control plane.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { appendFile, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { FlameoxError } from "../domain/errors.ts";
import { newWorkspaceId } from "../domain/ids.ts";
import { FLAMEOX_VERSION } from "../domain/version.ts";
import { ArtifactStore } from "./artifact-store.ts";
import { ControlPlane, nowIso } from "./control-plane.ts";
import { CONTROL_SCHEMA_VERSION } from "./control-schema.ts";
import { projectCatalog } from "./catalog.ts";
import { writeRootCommit } from "./corpus-store.ts";
import { recordHead } from "./head-log.ts";
import { RunStore } from "./run-store.ts";
import { ensureSpaceReserve } from "./space-reserve.ts";
import { defaultConfigToml, parseConfig, type WorkspaceConfig } from "./workspace-config.ts";
import { DIAGNOSTICS_DIR, workspacePaths, type WorkspacePaths } from "./workspace-paths.ts";

export const WORKSPACE_SCHEMA_VERSION = 1;

export interface WorkspaceIdentity {
  schema_version: number;
  workspace_id: string;
  created_at: string;
  project_root: string;
  flameox_version: string;
  control_schema_version: number;
}

export interface Workspace {
  paths: WorkspacePaths;
  identity: WorkspaceIdentity;
  config: WorkspaceConfig;
  control: ControlPlane;
  runs: RunStore;
  artifacts: ArtifactStore;
  close(): void;
}

/** Creates `.diagnostics/` under `projectRoot`; returns `created: false` when it already exists. */
export async function initWorkspace(
  projectRoot: string,
): Promise<{ created: boolean; identity: WorkspaceIdentity }> {
  const root = resolve(projectRoot);
  const paths = workspacePaths(root);
  if (existsSync(paths.workspaceJson)) {
    const ws = await openWorkspace(root);
    const identity = ws.identity;
    ws.close();
    return { created: false, identity };
  }
  if (!existsSync(root)) mkdirSync(root, { recursive: true });
  // Build everything in a temporary directory and rename it into place, so a crash
  // during init never leaves a half-made workspace that looks real.
  const tmp = join(root, `${DIAGNOSTICS_DIR}.init-${process.pid}-${Date.now()}`);
  for (const dir of [
    "artifacts",
    "evidence",
    "generations",
    "corpus/commits",
    "staging",
    "quarantine",
    "trash",
  ]) {
    mkdirSync(join(tmp, dir), { recursive: true });
  }
  const identity: WorkspaceIdentity = {
    schema_version: WORKSPACE_SCHEMA_VERSION,
    workspace_id: newWorkspaceId(),
    created_at: nowIso(),
    project_root: "..",
    flameox_version: FLAMEOX_VERSION,
    control_schema_version: CONTROL_SCHEMA_VERSION,
  };
  writeFileSync(join(tmp, "config.toml"), defaultConfigToml());
  ensureSpaceReserve(workspacePaths(root, tmp));
  const rootCommit = writeRootCommit(workspacePaths(root, tmp));
  const control = ControlPlane.create(join(tmp, "control.sqlite"), identity.workspace_id);
  // The catalog starts as the projection of the root commit, so a fresh workspace is in
  // sync (not "behind HEAD") before anything is imported; the HEAD log starts at the root.
  control.withWriteLock(() => {
    projectCatalog(control.db, rootCommit);
    recordHead(control.db, rootCommit);
  });
  control.close();
  writeFileSync(join(tmp, "workspace.json"), JSON.stringify(identity, null, 2) + "\n");
  try {
    renameSync(tmp, paths.diagnostics);
  } catch (error) {
    if (existsSync(paths.workspaceJson)) return { created: false, identity: readIdentity(paths) };
    throw error;
  }
  await excludeFromGit(root);
  return { created: true, identity };
}

/** Walks up from `start` to the nearest directory containing `.diagnostics/workspace.json`. */
export function locateWorkspace(start: string): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, DIAGNOSTICS_DIR, "workspace.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new FlameoxError(
        "WORKSPACE_NOT_FOUND",
        `Cannot find a flameox workspace in ${resolve(start)} or any parent directory`,
        {
          remediation: ["Run `flameox init` in the project root", "Or pass --workspace PATH"],
        },
      );
    }
    dir = parent;
  }
}

export async function openWorkspace(projectRoot: string): Promise<Workspace> {
  const paths = workspacePaths(resolve(projectRoot));
  if (!existsSync(paths.workspaceJson)) {
    throw new FlameoxError(
      "WORKSPACE_NOT_FOUND",
      `Cannot find a flameox workspace at ${paths.projectRoot}`,
      {
        remediation: ["Run `flameox init` in the project root"],
      },
    );
  }
  const identity = readIdentity(paths);
  const config = parseConfig(await readFile(paths.configToml, "utf8").catch(() => ""));
  const control = ControlPlane.open(paths.controlDb, {
    lockTimeoutMs: config.storage.write_lock_timeout_ms,
  });
  return {
    paths,
    identity,
    config,
    control,
    runs: new RunStore(control.db),
    artifacts: new ArtifactStore(control.db),
    close: () => control.close(),
  };
}

function readIdentity(paths: WorkspacePaths): WorkspaceIdentity {
  let identity: WorkspaceIdentity;
  try {
    identity = JSON.parse(readFileSync(paths.workspaceJson, "utf8"));
  } catch (error) {
    throw new FlameoxError(
      "WORKSPACE_INVALID",
      `Cannot read .diagnostics/workspace.json: ${(error as Error).message}`,
    );
  }
  if (identity.schema_version !== WORKSPACE_SCHEMA_VERSION) {
    throw new FlameoxError(
      "WORKSPACE_SCHEMA_UNSUPPORTED",
      `Cannot open workspace: schema version ${identity.schema_version} is not supported ` +
        `(this flameox knows version ${WORKSPACE_SCHEMA_VERSION})`,
      {
        remediation: [
          "Use the flameox version that created this workspace; flameox never migrates a " +
            "workspace by guess",
        ],
      },
    );
  }
  return identity;
}

/**
 * Adds `.diagnostics/` to `.git/info/exclude` (never the tracked .gitignore) when the root is a git
 * checkout.
 */
async function excludeFromGit(root: string): Promise<void> {
  const gitDir = join(root, ".git");
  if (!existsSync(gitDir)) return;
  const exclude = join(gitDir, "info", "exclude");
  mkdirSync(dirname(exclude), { recursive: true });
  const current = existsSync(exclude) ? readFileSync(exclude, "utf8") : "";
  if (
    current
      .split("\n")
      .some(
        (line) => line.trim() === `/${DIAGNOSTICS_DIR}/` || line.trim() === `${DIAGNOSTICS_DIR}/`,
      )
  )
    return;
  await appendFile(
    exclude,
    `${current.length > 0 && !current.endsWith("\n") ? "\n" : ""}/${DIAGNOSTICS_DIR}/\n`,
  );
}
