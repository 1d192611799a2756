/**
 * Capture test projects: a temp project with the fixture workloads, a flameox.toml and an open
 * workspace service.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse, stringify } from "smol-toml";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { WORKLOAD_PATH } from "../../src/domain/environment-policy.ts";
import { REPO, tempDir } from "../helpers.ts";

export interface CaptureProject {
  root: string;
  service: WorkspaceService;
  cleanup: () => void;
  /** Reads an artifact's stored bytes (tests only; agents never get bytes). */
  bytes(artifactId: string): Buffer;
}

/**
 * `execution` overrides keys of the [execution] policy in .diagnostics/config.toml. Every
 * declared workload is approved through the capture service (the path `flameox workload
 * approve --yes` takes) unless `approve` is false: only approved workloads run.
 */
export async function captureProject(
  toml: string,
  options: { execution?: Record<string, unknown>; git?: boolean; approve?: boolean } = {},
): Promise<CaptureProject> {
  const dir = tempDir("flameox-capture-");
  cpSync(join(REPO, "fixtures", "workloads"), join(dir.path, "workloads"), { recursive: true });
  writeFileSync(join(dir.path, "flameox.toml"), toml);
  if (options.git)
    git(
      dir.path,
      ["init", "-q"],
      ["add", "-A"],
      ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "init"],
    );
  await WorkspaceService.init(dir.path);
  if (options.execution) {
    const path = join(dir.path, ".diagnostics", "config.toml");
    const config = parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;
    config.execution = { ...config.execution, ...options.execution };
    writeFileSync(path, stringify(config));
  }
  const service = await WorkspaceService.open({ workspace: dir.path });
  if (options.approve !== false) await approveDeclared(service);
  return {
    root: dir.path,
    service,
    cleanup: () => {
      service.close();
      dir.cleanup();
    },
    bytes: (artifactId) => {
      const hex = artifactId.slice(7);
      return readFileSync(
        join(dir.path, ".diagnostics", "artifacts", "sha256", hex.slice(0, 2), hex),
      );
    },
  };
}

/**
 * Puts the test runtime's own directory (bun's, outside the system directories here) on
 * the workspace's execution.workload_path, as a person would for a runtime installed
 * elsewhere: a workload's PATH is never flameox's own.
 */
export function allowRuntimeOnWorkloadPath(root: string): void {
  const path = join(root, ".diagnostics", "config.toml");
  const config = parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;
  config.execution = {
    ...config.execution,
    workload_path: `${dirname(process.execPath)}:${WORKLOAD_PATH}`,
  };
  writeFileSync(path, stringify(config));
}

export function git(cwd: string, ...commands: string[][]): void {
  for (const args of commands) {
    const result = Bun.spawnSync(["git", ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_CONFIG_NOSYSTEM: "1",
      },
    });
    if (result.exitCode !== 0)
      throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
  }
}

/**
 * Approves every workload declared in flameox.toml now, as a person would with
 * `flameox workload approve NAME --yes`.
 */
export async function approveDeclared(service: WorkspaceService): Promise<string[]> {
  const capture = await service.capture();
  const names = capture.workloadStatus().workloads.map((w) => w.name);
  for (const name of names) capture.approveWorkload(name);
  return names;
}
