/**
 * `flameox setup`: writes the flameox MCP server into agent clients' configuration files.
 * A plan is computed first (the exact new text and a unified diff per file) and nothing
 * is written until the caller applies it. Applying keeps a backup of every file it
 * touches, and of the fact that a file did not exist, in a manifest under
 * HOME/.flameox/setup/, so a rollback puts back the same bytes or removes what was
 * created. Verification reads each written file back the way its client does and
 * completes an MCP `initialize` with the command found there.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createTwoFilesPatch } from "diff";
import { FlameoxError } from "../../domain/errors.ts";
import { serverCommand } from "../server-command.ts";
import {
  CLIENTS,
  type ClientDefinition,
  type ClientId,
  clientById,
  projectRootArgument,
  type ServerLaunch,
  type SetupScope,
} from "./clients.ts";
import { readServerEntry, withServerEntry } from "./config-edit.ts";

export interface SetupOptions {
  home: string;
  project: string;
  scope: SetupScope;
  /** Clients to configure; default: those detected. */
  clients?: string[];
  /** How the server is started for a project root argument; default: this flameox. */
  launch?: (projectRoot: string) => ServerLaunch;
  /**
   * MCP tool groups the server publishes (`--tools`, e.g. "core,capture" or "all"); default: the
   * server's own.
   */
  tools?: string;
}

export interface PlannedChange {
  client: ClientId;
  client_name: string;
  path: string;
  action: "create" | "update" | "unchanged";
  diff: string;
  before: string | null;
  after: string;
}

export interface SetupPlan {
  scope: SetupScope;
  home: string;
  project: string;
  detected: ClientId[];
  changes: PlannedChange[];
}

interface ManifestFile {
  path: string;
  existed: boolean;
  backup: string | null;
  mode: number | null;
  written_sha256: string;
}

interface Manifest {
  id: string;
  created_at: string;
  scope: SetupScope;
  project: string;
  files: ManifestFile[];
  created_dirs: string[];
  rolled_back_at?: string;
}

export interface ApplyResult {
  backup_id: string;
  backup_dir: string;
  written: string[];
}

export interface VerifyResult {
  client: ClientId;
  path: string;
  ok: boolean;
  command: string;
  args: string[];
  server?: string;
  error?: string;
  elapsed_ms: number;
}

export interface RollbackResult {
  backup_id: string;
  restored: string[];
  removed: string[];
}

const sha256 = (bytes: Uint8Array | string): string =>
  createHash("sha256").update(bytes).digest("hex");
const stateDir = (home: string): string => join(home, ".flameox", "setup");

export function detectClients(home: string, project: string): ClientId[] {
  return CLIENTS.filter((c) => c.markers(home, project).some((p) => existsSync(p))).map(
    (c) => c.id,
  );
}

function selectClients(options: SetupOptions, detected: ClientId[]): ClientDefinition[] {
  if (!options.clients || options.clients.length === 0) {
    if (detected.length === 0) {
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        "No supported agent client was found in this project or home directory",
        {
          remediation: [`Name one or more with --client ${CLIENTS.map((c) => c.id).join(",")}`],
        },
      );
    }
    return detected.map((id) => clientById(id)!);
  }
  return options.clients.map((id) => {
    const client = clientById(id);
    if (!client)
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        `Unknown client ${JSON.stringify(id)}; expected one ` +
          `of ${CLIENTS.map((c) => c.id).join(", ")}`,
        { details: { field: "client" } },
      );
    return client;
  });
}

export function planSetup(options: SetupOptions): SetupPlan {
  const home = resolve(options.home);
  const project = resolve(options.project);
  const detected = detectClients(home, project);
  const launchFor =
    options.launch ?? ((root: string) => serverCommand(root, { tools: options.tools }));
  const changes = selectClients(options, detected).map((client): PlannedChange => {
    const path = client.path(options.scope, home, project);
    const before = existsSync(path) ? readFileSync(path, "utf8") : null;
    const after = withServerEntry(
      client,
      path,
      before,
      client.entry(launchFor(projectRootArgument(client, options.scope, project))),
    );
    const action = before === null ? "create" : before === after ? "unchanged" : "update";
    const diff =
      action === "unchanged"
        ? ""
        : createTwoFilesPatch(
            before === null ? "/dev/null" : path,
            path,
            before ?? "",
            after,
            undefined,
            undefined,
            { context: 3 },
          );
    return { client: client.id, client_name: client.name, path, action, diff, before, after };
  });
  return { scope: options.scope, home, project, detected, changes };
}

/**
 * Writes through a symlink to its target, and by rename so a crash leaves the old or the new file.
 */
function writeAtomically(path: string, text: string | Uint8Array, mode: number | null): void {
  const target = existsSync(path) ? realpathSync(path) : path;
  const temp = `${target}.flameox-${process.pid}.tmp`;
  writeFileSync(temp, text);
  if (mode !== null) chmodSync(temp, mode);
  renameSync(temp, target);
}

export function applySetup(plan: SetupPlan): ApplyResult {
  const pending = plan.changes.filter((c) => c.action !== "unchanged");
  const id = `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`;
  const dir = join(stateDir(plan.home), id);
  mkdirSync(join(dir, "files"), { recursive: true });
  const manifest: Manifest = {
    id,
    created_at: new Date().toISOString(),
    scope: plan.scope,
    project: plan.project,
    files: [],
    created_dirs: [],
  };
  const saveManifest = () =>
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  // Every backup is on disk, and named in the manifest, before the first file changes.
  pending.forEach((change, i) => {
    const existed = existsSync(change.path);
    const backup = existed ? join("files", String(i)) : null;
    if (backup) writeFileSync(join(dir, backup), readFileSync(change.path));
    manifest.files.push({
      path: change.path,
      existed,
      backup,
      mode: existed ? statSync(change.path).mode & 0o7777 : null,
      written_sha256: sha256(change.after),
    });
  });
  saveManifest();
  for (const change of pending) {
    // The plan's "before" must still be what is on disk: another writer may have changed it since
    // the preview.
    const now = existsSync(change.path) ? readFileSync(change.path, "utf8") : null;
    if (now !== change.before) {
      throw new FlameoxError(
        "CONFIGURATION_CHANGED",
        `${change.path} changed after the preview; nothing more was written`,
        {
          remediation: [
            "Run `flameox setup` again to see the current change",
            "`flameox setup --rollback` undoes files already written",
          ],
        },
      );
    }
    const created = mkdirSync(dirname(change.path), { recursive: true });
    if (created) manifest.created_dirs.push(created);
    const entry = manifest.files.find((f) => f.path === change.path)!;
    writeAtomically(change.path, change.after, entry.mode);
    saveManifest();
  }
  return { backup_id: id, backup_dir: dir, written: pending.map((c) => c.path) };
}

/** Starts each distinct server command found in the written files and completes MCP initialize. */
export async function verifySetup(
  plan: SetupPlan,
  options: { timeoutMs?: number } = {},
): Promise<VerifyResult[]> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { getDefaultEnvironment, StdioClientTransport } = await import(
    "@modelcontextprotocol/sdk/client/stdio.js"
  );
  const { FLAMEOX_VERSION } = await import("../../domain/version.ts");
  const outcomes = new Map<string, Promise<Omit<VerifyResult, "client" | "path">>>();
  const verifyLaunch = async (
    launch: ServerLaunch,
  ): Promise<Omit<VerifyResult, "client" | "path">> => {
    const started = performance.now();
    const args = launch.args.map((a) => a.replaceAll("${workspaceFolder}", plan.project));
    const transport = new StdioClientTransport({
      command: launch.command,
      args,
      cwd: plan.project,
      env: { ...getDefaultEnvironment(), NO_COLOR: "1" },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const client = new Client({ name: "flameox-setup", version: FLAMEOX_VERSION });
    try {
      await client.connect(transport, { timeout: options.timeoutMs ?? 60_000 });
      const info = client.getServerVersion();
      return {
        ok: true,
        command: launch.command,
        args: launch.args,
        server: info ? `${info.name} ${info.version}` : "unknown",
        elapsed_ms: Math.round(performance.now() - started),
      };
    } catch (error) {
      const why = [(error as Error).message, stderr.trim().split("\n").at(-1)]
        .filter(Boolean)
        .join(": ");
      return {
        ok: false,
        command: launch.command,
        args: launch.args,
        error: why,
        elapsed_ms: Math.round(performance.now() - started),
      };
    } finally {
      await client.close().catch(() => undefined);
    }
  };
  const results: Promise<VerifyResult>[] = plan.changes.map(async (change) => {
    const client = clientById(change.client)!;
    const text = existsSync(change.path) ? readFileSync(change.path, "utf8") : "";
    const launch = client.launchOf(readServerEntry(client, change.path, text));
    if (!launch)
      return {
        client: change.client,
        path: change.path,
        ok: false,
        command: "",
        args: [],
        error: "no flameox entry in the file",
        elapsed_ms: 0,
      };
    // Clients that were given the same command start the same server: one start answers for all of
    // them.
    const key = JSON.stringify(launch);
    if (!outcomes.has(key)) outcomes.set(key, verifyLaunch(launch));
    return { client: change.client, path: change.path, ...(await outcomes.get(key)!) };
  });
  return Promise.all(results);
}

function latestManifest(home: string): { dir: string; manifest: Manifest } {
  const root = stateDir(home);
  const ids = existsSync(root) ? readdirSync(root).sort().reverse() : [];
  for (const id of ids) {
    const file = join(root, id, "manifest.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as Manifest;
    if (!manifest.rolled_back_at) return { dir: join(root, id), manifest };
  }
  throw new FlameoxError("RECORD_NOT_FOUND", `No flameox setup to roll back under ${root}`, {
    remediation: ["Pass the same --home that setup used"],
  });
}

/** What a rollback would do, without doing it. */
export function previewRollback(home: string): RollbackResult {
  const { manifest } = latestManifest(resolve(home));
  return {
    backup_id: manifest.id,
    restored: manifest.files.filter((f) => f.existed).map((f) => f.path),
    removed: manifest.files.filter((f) => !f.existed).map((f) => f.path),
  };
}

/**
 * Puts back the files of the latest setup that was not rolled back. A file edited since
 * setup wrote it is not overwritten unless `force`: the edit would be lost.
 */
export function rollbackSetup(home: string, options: { force?: boolean } = {}): RollbackResult {
  const { dir, manifest } = latestManifest(resolve(home));
  if (!options.force) {
    for (const file of manifest.files) {
      const current = existsSync(file.path) ? sha256(readFileSync(file.path)) : null;
      if (current !== file.written_sha256) {
        throw new FlameoxError(
          "CONFIGURATION_CHANGED",
          `${file.path} changed since flameox setup wrote it; nothing was restored`,
          {
            remediation: [
              "Compare it with the backup in " + dir,
              "`flameox setup --rollback --force` restores it anyway",
            ],
            details: { path: file.path },
          },
        );
      }
    }
  }
  const result: RollbackResult = { backup_id: manifest.id, restored: [], removed: [] };
  for (const file of manifest.files) {
    if (file.existed && file.backup) {
      writeAtomically(file.path, readFileSync(join(dir, file.backup)), file.mode);
      result.restored.push(file.path);
    } else if (existsSync(file.path)) {
      unlinkSync(file.path);
      result.removed.push(file.path);
    }
  }
  // Directories setup created go too, deepest first, when nothing else was put in them since.
  for (const created of manifest.created_dirs) {
    const chain: string[] = [];
    for (const f of manifest.files) {
      for (let d = dirname(f.path); d.startsWith(created); d = dirname(d)) chain.push(d);
    }
    for (const d of [...new Set(chain)].sort((a, b) => b.length - a.length)) {
      try {
        if (readdirSync(d).length === 0) rmdirSync(d);
      } catch {
        // already gone
      }
    }
  }
  manifest.rolled_back_at = new Date().toISOString();
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  return result;
}
