/**
 * The floor under an import of one input: what the stages that no import of it can skip
 * cost when each runs alone with nothing else to do (bench/floor-probe.ts, each in a fresh
 * process, as the import's own processes are), and the fastest rate that leaves on 1, 2 and
 * 4 cores if every other cost were zero and those stages split perfectly over the cores.
 *
 * The stages: two process starts (the CLI and its parse worker, each a bare `bun -e 0`),
 * the store's copy + hash + fsync of the file, the format's WASM scanner over the bytes
 * with a callback that does nothing per record, and Parquet encoding of the rows the import
 * wrote. For trace formats the tables derived from the events (stacks, call edges, frames
 * and their measures) are counted apart: they could be built later, at first query.
 * Each figure is the generous one (the best of three copies and of two scans, the scan
 * without compiling the scanner, encoding after a warm-up), and nothing per event (nesting,
 * ids, rows) is counted, so the real ceiling is lower.
 */
import { join } from "node:path";
import { runTimed } from "./measure-process.ts";

export type FloorKind = "chrome" | "cpuprofile" | "otlp" | "perfetto";

/** Tables a trace import derives from its events rather than reads from the input. */
const DERIVED_TABLES = new Set(["stacks", "call_edges", "frames", "frame_measurements"]);
const probe = join(import.meta.dir, "floor-probe.ts");
const MB = 1024 * 1024;

async function probeJson(args: string[], cwd: string): Promise<Record<string, number>> {
  const run = await runTimed([process.execPath, probe, ...args], cwd);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** Lines to print for one input, given this checkout's import of it (workspace, generation). */
export async function floorLines(
  kind: FloorKind,
  path: string,
  bytes: number,
  workspace: string,
  generationId: string,
): Promise<string[]> {
  const starts: number[] = [];
  for (let i = 0; i < 3; i++)
    starts.push((await runTimed([process.execPath, "-e", "0"], workspace)).wallMs);
  const registrations: Record<string, number>[] = [];
  for (let i = 0; i < 3; i++)
    registrations.push(
      await probeJson(["register", path, join(workspace, ".diagnostics")], workspace),
    );
  // The fastest of three: disk writeback makes single runs vary several-fold.
  const registration = registrations.reduce((a, b) => (b.cpuMs! < a.cpuMs! ? b : a));
  const scans = [
    await probeJson(["scan", kind, path], workspace),
    await probeJson(["scan", kind, path], workspace),
  ];
  const scan = scans.reduce((a, b) => (b.cpuMs! < a.cpuMs! ? b : a));
  const encoded = await probeJson(
    ["encode", join(workspace, ".diagnostics", "evidence"), generationId],
    workspace,
  );
  const trace = kind === "chrome" || kind === "perfetto";
  let read = 0;
  let derived = 0;
  for (const [table, ms] of Object.entries(encoded))
    if (trace && DERIVED_TABLES.has(table)) derived += ms;
    else read += ms;
  const processes = 2 * median(starts);
  const rate = (cpuMs: number, cores: number) => bytes / MB / ((processes + cpuMs / cores) / 1000);
  const without = registration.cpuMs! + scan.cpuMs! + read;
  const ceiling = (cpuMs: number) =>
    [1, 2, 4].map(
      (cores) => `${cores} core${cores > 1 ? "s" : ""} ${rate(cpuMs, cores).toFixed(0)}`,
    );
  const f0 = (n: number) => n.toFixed(0);
  return [
    `floor, each stage alone in its own process: two process starts ${f0(processes)} ms; ` +
      `copy + hash + fsync ${f0(registration.ms!)} ms (CPU ${f0(registration.cpuMs!)}, best ` +
      `of 3); WASM scan (best of 2), nothing done per record, ${f0(scan.ms!)} ms ` +
      `(CPU ${f0(scan.cpuMs!)}; ` +
      `its compile ${f0(scan.openMs!)} ms, not counted); ` +
      `Parquet encoding ${f0(read)} ms` +
      (trace ? ` for the events' own tables, ${f0(derived)} ms for the derived ones` : ""),
    `ceiling if nothing else cost anything and the stages split perfectly (MB/s): ` +
      ceiling(without).join(", ") +
      (trace ? `; with the derived tables: ${ceiling(without + derived).join(", ")}` : ""),
  ];
}
