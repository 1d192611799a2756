/**
 * Shared by the kill-during-parse test and its bench: start `flameox import`, wait until
 * its parse worker runs and its extraction is recorded, SIGKILL the CLI, and report
 * whether the worker outlived it.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseWorkersUnder, REPO } from "../helpers.ts";

export { parseWorkersUnder };

/**
 * Whether an import's extraction under `root` is recorded: the worker starts while the payload
 * is still being copied, and the extraction (with its `landed.json`) only once the copy is
 * registered, so a kill before that leaves a run and no extraction.
 */
function extractionRecorded(root: string, earlier: ReadonlySet<string>): boolean {
  const staging = join(root, ".diagnostics", "staging");
  return stagingOps(root).some(
    (op) => !earlier.has(op) && existsSync(join(staging, op, "landed.json")),
  );
}

function stagingOps(root: string): string[] {
  try {
    return readdirSync(join(root, ".diagnostics", "staging"));
  } catch {
    return [];
  }
}

/**
 * Kills the CLI once its worker has run for `afterMs` past the recording of its extraction;
 * returns the workers alive `waitMs` later.
 */
export async function killImportDuringParse(
  root: string,
  input: string,
  options: { afterMs?: number; waitMs?: number } = {},
): Promise<{ sawWorker: boolean; survivors: number[] }> {
  // Staging left by earlier killed imports (recover reclaims it) is not this import's.
  const earlier = new Set(stagingOps(root));
  const child = Bun.spawn(
    [process.execPath, join(REPO, "src", "cli", "main.ts"), "import", input, "--json"],
    {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1" },
      stdout: "ignore",
      stderr: "ignore",
    },
  );
  let sawWorker = false;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (!sawWorker) sawWorker = parseWorkersUnder(root).length > 0;
    if (sawWorker && extractionRecorded(root, earlier)) break;
    await Bun.sleep(20);
  }
  await Bun.sleep(options.afterMs ?? 150);
  child.kill("SIGKILL");
  await child.exited;
  const until = Date.now() + (options.waitMs ?? 2000);
  let survivors = parseWorkersUnder(root);
  while (survivors.length > 0 && Date.now() < until) {
    await Bun.sleep(50);
    survivors = parseWorkersUnder(root);
  }
  return { sawWorker, survivors };
}
