/**
 * Heavy lane of tests/storage/killed-cli.test.ts: SIGKILLs `flameox import` N times while
 * its parse worker runs, at varied points of the parse, then runs `flameox recover`.
 * Prints surviving workers after each kill, and what recover left (staging entries,
 * runs and extractions still running, live workers). Figures only.
 *
 *   bun bench/kill-during-parse.ts [--kills 10] [--bytes 40000000]
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Database } from "bun:sqlite";
import { generateCpuProfile } from "../fixtures/generators/cpuprofile.ts";
import { killImportDuringParse, parseWorkersUnder } from "../tests/storage/kill-during-parse.ts";
import { tempDir } from "../tests/helpers.ts";

const { values } = parseArgs({
  options: {
    kills: { type: "string", default: "10" },
    bytes: { type: "string", default: "40000000" },
  },
});
const cli = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const dir = tempDir("flameox-kill-bench-");
const run = (args: string[]) =>
  Bun.spawnSync([process.execPath, cli, ...args], {
    cwd: dir.path,
    env: { ...process.env, NO_COLOR: "1" },
  });
try {
  run(["init", dir.path]);
  const input = join(dir.path, "big.cpuprofile");
  await generateCpuProfile(input, Number(values.bytes));
  let survived = 0;
  for (let k = 0; k < Number(values.kills); k++) {
    const { sawWorker, survivors } = await killImportDuringParse(dir.path, input, {
      afterMs: 100 + k * 150,
    });
    survived += survivors.length;
    console.log(`kill ${k + 1}: worker seen ${sawWorker}, surviving workers ${survivors.length}`);
  }
  const recovered = JSON.parse(run(["recover", "--json"]).stdout.toString());
  const db = new Database(join(dir.path, ".diagnostics", "control.sqlite"), { readonly: true });
  const open = db
    .query(
      "SELECT count(*) AS n FROM runs WHERE capture_status = 'running' OR extraction_status " +
        "= 'running'",
    )
    .get() as { n: number };
  const extracting = db
    .query("SELECT count(*) AS n FROM extractions WHERE status = 'running'")
    .get() as { n: number };
  db.close();
  console.log(`workers surviving their CLI: ${survived}`);
  console.log(
    `recover: ${recovered.closed.length} runs closed, ${recovered.staging_reclaimed.length} ` +
      `staging entries reclaimed, ${recovered.extractions_closed} extractions closed`,
  );
  console.log(
    `after recover: staging ` +
      `entries ${readdirSync(join(dir.path, ".diagnostics", "staging")).length}, runs ` +
      `running ${open.n}, extractions running ${extracting.n}, live ` +
      `workers ${parseWorkersUnder(dir.path).length}`,
  );
} finally {
  dir.cleanup();
}
