/**
 * Shared by the kill-during-parse test and its bench: start `flameox import`, wait until
 * its parse worker runs, SIGKILL the CLI, and report whether the worker outlived it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../helpers.ts";

/** Live (non-zombie) parse workers whose request lies under `root`. */
export function parseWorkersUnder(root: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0");
      if (
        !cmdline.some((a) => a.endsWith("workers/parse.ts")) ||
        !cmdline.some((a) => a.startsWith(root))
      )
        continue;
      const state = /\) (\S)/.exec(readFileSync(`/proc/${name}/stat`, "latin1"))?.[1];
      if (state !== "Z") found.push(Number(name));
    } catch {
      // The process ended while it was read.
    }
  }
  return found;
}

/**
 * Kills the CLI once its worker has run for `afterMs`; returns the workers alive `waitMs` later.
 */
export async function killImportDuringParse(
  root: string,
  input: string,
  options: { afterMs?: number; waitMs?: number } = {},
): Promise<{ sawWorker: boolean; survivors: number[] }> {
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
    if (parseWorkersUnder(root).length > 0) {
      sawWorker = true;
      break;
    }
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
