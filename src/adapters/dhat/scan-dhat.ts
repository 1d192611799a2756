/**
 * A DHAT profile through the WASM JSON scanner (dhat-program.ts) into what its evidence
 * needs: the top-level fields, the frame table as strings (small: one per distinct code
 * location), and the program points (the bulk) as compact records in a RecordSpool.
 * DHAT writes `ftbl` after `pps`, so a point cannot be named when it arrives; the spool
 * keeps it in a few bytes (its totals, the JSON kinds of its fields for the checks, and
 * its frame indexes) and spills past its memory budget. Nothing is checked here beyond
 * the point limit: dhat-evidence.ts checks the document in the order the reference reader
 * (JSON.parse, kept in tests) does, so the same file fails with the same error.
 *
 * Where a key is repeated, JSON.parse keeps the last value: so do these records (a slot
 * keeps the last scalar; a repeated array's elements are the last `count` entries).
 */
import type { AdapterLimits } from "../adapter.ts";
import type { RecordSpool } from "../common/record-spool.ts";
import { tooLarge } from "../json-guard.ts";
import { TAG_ABSENT, TAG_ARRAY, TAG_NUMBER, type JsonBatch } from "../wasm/json-batch.ts";
import { JsonScanner, type JsonScanOptions } from "../wasm/json-scanner.ts";
import {
  DHAT_POINT_FIELDS,
  dhatProgram,
  P_FS,
  R_FRAME,
  R_FS,
  R_PP,
  R_TOP,
  T_BKLT,
  T_FTBL,
  T_MODE,
  T_PPS,
  T_VERSION,
} from "./dhat-program.ts";

export const DHAT_FORMAT = "DHAT profile";

/**
 * A program point's spooled record: its JSON kinds (own, tb, tbk, gb, gbk, fs: 4 bits
 * each), tb, tbk, gb, gbk (f64; NaN when not a number), the fs length, then each fs
 * entry: a frame index when it is a non-negative integer below 2^31, else minus its JSON
 * kind (what the error quotes).
 */
export const POINT_HEAD_BYTES = 4 + 4 * 8 + 4;

export interface DhatScan {
  topKind: number;
  version: unknown;
  modeKind: number;
  mode: string | undefined;
  lifetimes: boolean;
  ftblKind: number;
  /** The frame table; null where an entry is not a string. */
  frames: (string | null)[];
  ppsKind: number;
  /** The spooled points of the last `pps` array: records [ppsStart, ppsStart + pointCount). */
  points: RecordSpool;
  ppsStart: number;
  pointCount: number;
}

const scanOptions = (limits: AdapterLimits): JsonScanOptions => ({
  format: DHAT_FORMAT,
  maxDepth: limits.maxNestingDepth,
  truncateJsonAt: 1 << 30,
});

/** The profile in chunks, as it streams in. */
export async function scanDhat(
  chunks: AsyncIterable<Uint8Array>,
  limits: AdapterLimits,
  points: RecordSpool,
): Promise<DhatScan> {
  const reader = new DhatBatchReader(limits.maxEvents, points);
  const scanner = await JsonScanner.open(dhatProgram(), scanOptions(limits));
  await scanner.scanChunks(chunks, reader.onBatch);
  return reader.result();
}

class DhatBatchReader {
  private frames: (string | null)[] = [];
  /** Entries of the `fs` array being read, and the point (record serial) they belong to. */
  private fs: number[] = [];
  private fsOwner = -1;
  private top: Omit<DhatScan, "frames" | "points" | "ppsStart" | "pointCount"> | null = null;
  private pointCount = 0;

  constructor(
    private readonly maxPoints: number,
    private readonly points: RecordSpool,
  ) {}

  readonly onBatch = (b: JsonBatch): void => {
    for (let r = 0; r < b.count; r++) {
      switch (b.type(r)) {
        case R_FS: {
          // A new array (or a repeated `fs` key) starts over.
          if (b.index(r) === 0 || b.parent(r) !== this.fsOwner) {
            this.fs.length = 0;
            this.fsOwner = b.parent(r);
          }
          const v = b.num(r, 0);
          const kind = b.kind(r, 0);
          this.fs.push(
            kind === TAG_NUMBER && Number.isInteger(v) && v >= 0 && v < 2 ** 31 ? v : -kind,
          );
          break;
        }
        case R_PP:
          this.point(b, r);
          break;
        case R_FRAME:
          if (b.index(r) === 0) this.frames = [];
          this.frames.push(b.string(r, 0) ?? null);
          break;
        case R_TOP:
          this.top = {
            topKind: b.selfKind(r),
            version: b.value(r, T_VERSION),
            modeKind: b.kind(r, T_MODE),
            mode: b.string(r, T_MODE),
            lifetimes: b.value(r, T_BKLT) === true,
            ftblKind: b.kind(r, T_FTBL),
            ppsKind: b.kind(r, T_PPS),
          };
          this.pointCount = b.kind(r, T_PPS) === TAG_ARRAY ? b.int(r, T_PPS) : 0;
          if (b.kind(r, T_FTBL) === TAG_ARRAY) {
            const count = b.int(r, T_FTBL);
            this.frames = count === 0 ? [] : this.frames.slice(this.frames.length - count);
          }
          break;
      }
    }
  };

  private point(b: JsonBatch, r: number): void {
    const index = b.index(r);
    if (index + 1 > this.maxPoints)
      throw tooLarge(DHAT_FORMAT, "program points", index + 1, this.maxPoints);
    const fsKind = b.kind(r, P_FS);
    let kinds = b.selfKind(r) | (fsKind << 20);
    for (const [, slot] of DHAT_POINT_FIELDS) kinds |= b.kind(r, slot) << (4 + 4 * slot);
    // The last `fs` array's entries (none when it was empty or is not an array).
    const count = fsKind === TAG_ARRAY && this.fsOwner === b.serial(r) ? b.int(r, P_FS) : 0;
    const fs = this.fs;
    const spool = this.points;
    spool.begin(POINT_HEAD_BYTES + 4 * count);
    spool.i32(kinds);
    for (const [, slot] of DHAT_POINT_FIELDS)
      spool.f64(b.kind(r, slot) === TAG_NUMBER ? b.num(r, slot) : Number.NaN);
    spool.i32(count);
    for (let k = fs.length - count; k < fs.length; k++) spool.i32(fs[k]!);
  }

  result(): DhatScan {
    const top = this.top ?? {
      topKind: TAG_ABSENT,
      version: undefined,
      modeKind: TAG_ABSENT,
      mode: undefined,
      lifetimes: false,
      ftblKind: TAG_ABSENT,
      ppsKind: TAG_ABSENT,
    };
    return {
      ...top,
      frames: this.frames,
      points: this.points,
      ppsStart: this.points.records - this.pointCount,
      pointCount: this.pointCount,
    };
  }
}
