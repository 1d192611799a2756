/**
 * DHAT's JSON output (`dhat.out.PID`, `dhatFileVersion` 2; Valgrind's DHAT and the dhat-rs
 * crate write it): program points (`pps`), each with its totals and a stack (`fs`, indexes
 * into the frame table `ftbl`, allocation site first). Checked field by field so a wrong
 * file fails naming the field.
 */
import { expectationFailed, isPlainObject, parseFailed } from "../../../src/adapters/json-guard.ts";

export const DHAT_FORMAT = "DHAT profile";

export interface DhatProgramPoint {
  /** Total bytes and blocks allocated. */
  tb: number;
  tbk: number;
  /** Bytes and blocks live at the global peak (t-gmax); null without block lifetimes. */
  gb: number | null;
  gbk: number | null;
  /** Frame indexes, allocation site first. */
  fs: number[];
}

export interface DhatFile {
  version: number;
  mode: string;
  /** True when blocks' lifetimes were tracked (heap modes): gb/gbk are present. */
  lifetimes: boolean;
  cmd: string | null;
  frames: string[];
  pps: DhatProgramPoint[];
}

const count = (v: unknown): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

export function readDhatFile(value: unknown): DhatFile {
  if (!isPlainObject(value))
    throw expectationFailed(DHAT_FORMAT, "the top level", "an object", value);
  if (value.dhatFileVersion !== 2)
    throw parseFailed(
      DHAT_FORMAT,
      `expected dhatFileVersion 2 but found ${JSON.stringify(value.dhatFileVersion)}`,
    );
  if (typeof value.mode !== "string")
    throw expectationFailed(DHAT_FORMAT, "mode", "a string", value.mode);
  if (!Array.isArray(value.ftbl) || !value.ftbl.every((f) => typeof f === "string"))
    throw expectationFailed(DHAT_FORMAT, "ftbl", "an array of strings", value.ftbl);
  if (!Array.isArray(value.pps)) throw expectationFailed(DHAT_FORMAT, "pps", "an array", value.pps);
  const frames = value.ftbl as string[];
  const lifetimes = value.bklt === true;
  const pps = value.pps.map((p, i): DhatProgramPoint => {
    const at = `pps[${i}]`;
    if (!isPlainObject(p)) throw expectationFailed(DHAT_FORMAT, at, "an object", p);
    for (const key of ["tb", "tbk"] as const)
      if (!count(p[key]))
        throw expectationFailed(DHAT_FORMAT, `${at}.${key}`, "a non-negative integer", p[key]);
    if (lifetimes)
      for (const key of ["gb", "gbk"] as const)
        if (!count(p[key]))
          throw expectationFailed(
            DHAT_FORMAT,
            `${at}.${key}`,
            "a non-negative integer (bklt is true)",
            p[key],
          );
    if (!Array.isArray(p.fs)) throw expectationFailed(DHAT_FORMAT, `${at}.fs`, "an array", p.fs);
    const fs = p.fs.map((f, k) => {
      if (!Number.isInteger(f) || (f as number) < 0 || (f as number) >= frames.length)
        throw expectationFailed(
          DHAT_FORMAT,
          `${at}.fs[${k}]`,
          `a frame index below ${frames.length}`,
          f,
        );
      return f as number;
    });
    return {
      tb: p.tb as number,
      tbk: p.tbk as number,
      gb: lifetimes ? (p.gb as number) : null,
      gbk: lifetimes ? (p.gbk as number) : null,
      fs,
    };
  });
  return {
    version: 2,
    mode: value.mode,
    lifetimes,
    cmd: typeof value.cmd === "string" ? value.cmd : null,
    frames,
    pps,
  };
}
