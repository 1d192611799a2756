/**
 * The `--version` of a workload's runtime, which the V8 adapters need to pick their flags.
 * A host tool (resolved on PATH or named by an absolute path outside the project) is run
 * by its absolute path in an empty scratch directory, so no project file (a bunfig, an
 * .npmrc) is read. A project executable is project code: it runs only inside the same
 * managed sandbox as the workload, never at plan time on the host; under trusted_local
 * its version is not probed at all.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bubblewrapArgv, privateDirectories } from "../../broker/containment.ts";
import type { ResolvedExecutable } from "../../domain/capture.ts";
import { runProbe } from "./capabilities.ts";

const VERSION_TIMEOUT_MS = 10_000;

export async function workloadVersion(
  executable: ResolvedExecutable,
  where: {
    projectRoot: string;
    cwd: string;
    childPath: string | undefined;
    bwrap: ResolvedExecutable | null;
  },
): Promise<string | null> {
  if (executable.trust !== "project_bound")
    return versionOf(
      await runProbe([executable.path, "--version"], null, VERSION_TIMEOUT_MS, where.childPath),
    );
  if (!where.bwrap) return null;
  const scratch = mkdtempSync(join(tmpdir(), "flameox-version-"));
  try {
    const root = realpathSync(where.projectRoot);
    const layout = {
      projectRoot: root,
      diagnosticsDir: join(root, ".diagnostics"),
      writableRoots: [],
      outputDir: scratch,
      cwd: where.cwd,
      privateDirs: privateDirectories(process.env.HOME),
    };
    return versionOf(
      await runProbe(
        bubblewrapArgv(where.bwrap.path, layout, [executable.path, "--version"]),
        where.cwd,
        VERSION_TIMEOUT_MS,
        where.childPath,
      ),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function versionOf(outcome: { exitCode: number | null; stdout: string }): string | null {
  return outcome.exitCode === 0 ? outcome.stdout.trim().slice(0, 200) || null : null;
}
