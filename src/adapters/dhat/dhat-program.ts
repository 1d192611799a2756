/**
 * What the WASM JSON scanner extracts from a DHAT profile: the top-level fields, one
 * record per frame of `ftbl`, one per program point of `pps` (its totals and the kind
 * and length of its `fs`) and one per entry of a point's `fs`. Nothing else of the
 * document is kept (per-point fields DHAT writes but no evidence uses are skipped).
 */
import { JsonProgram, MODE_JSON_IF_CONTAINER, MODE_SCALAR } from "../wasm/json-program.ts";

export const R_TOP = 0;
export const R_FRAME = 1;
export const R_PP = 2;
export const R_FS = 3;

/** Top-level slots. */
export const T_VERSION = 0;
export const T_MODE = 1;
export const T_BKLT = 2;
export const T_FTBL = 3;
export const T_PPS = 4;

/** Program point slots. */
export const P_TB = 0;
export const P_TBK = 1;
export const P_GB = 2;
export const P_GBK = 3;
export const P_FS = 4;

export const DHAT_POINT_FIELDS = [
  ["tb", P_TB],
  ["tbk", P_TBK],
  ["gb", P_GB],
  ["gbk", P_GBK],
] as const;

export function dhatProgram(): JsonProgram {
  const p = new JsonProgram(5);
  p.record(0, R_TOP);
  // The version's value is quoted in the error when it is not 2, containers included.
  p.slot(p.key(0, "dhatFileVersion"), R_TOP, T_VERSION, MODE_SCALAR | MODE_JSON_IF_CONTAINER);
  p.slot(p.key(0, "mode"), R_TOP, T_MODE);
  p.slot(p.key(0, "bklt"), R_TOP, T_BKLT);
  const ftbl = p.key(0, "ftbl");
  p.slot(ftbl, R_TOP, T_FTBL);
  p.slot(p.elem(ftbl, p.node({ record: R_FRAME })), R_FRAME, 0);
  const pps = p.key(0, "pps");
  p.slot(pps, R_TOP, T_PPS);
  const pp = p.elem(pps, p.node({ record: R_PP }));
  for (const [key, slot] of DHAT_POINT_FIELDS) p.slot(p.key(pp, key), R_PP, slot);
  const fs = p.key(pp, "fs");
  p.slot(fs, R_PP, P_FS);
  p.slot(p.elem(fs, p.node({ record: R_FS })), R_FS, 0);
  return p;
}
