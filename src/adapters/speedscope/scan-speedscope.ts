/**
 * A speedscope file through the WASM JSON scanner (speedscope-program.ts) into what its
 * evidence needs: the top-level fields, the shared frames (a small table, kept as
 * objects), one header per profile, and the bulk, samples, weights and events, as
 * compact records in three RecordSpools, which spill past their memory budget. A file
 * may put `shared` after `profiles` (py-spy does), and a profile its `unit` or `type`
 * after its samples, so nothing can be measured until the document has ended; the spools
 * keep each sample in a few bytes until then. Checks are left to speedscope-checks.ts,
 * which makes them in the order the reference reader (JSON.parse, kept in tests) does.
 *
 * Where a key is repeated, JSON.parse keeps the last value: so do these records (a slot
 * keeps the last scalar; the elements of a repeated array are the last `count` records).
 */
import type { AdapterLimits } from "../adapter.ts";
import type { RecordSpool } from "../common/record-spool.ts";
import { tooLarge } from "../json-guard.ts";
import {
  TAG_ABSENT,
  TAG_ARRAY,
  TAG_NUMBER,
  TAG_OBJECT,
  TAG_STRING,
  type JsonBatch,
} from "../wasm/json-batch.ts";
import { JsonScanner, type JsonScanOptions } from "../wasm/json-scanner.ts";
import type { SpeedscopeFrame } from "./speedscope-frames.ts";
import {
  E_AT,
  E_FRAME,
  E_TYPE,
  F_COL,
  F_FILE,
  F_LINE,
  F_NAME,
  P_END,
  P_EVENTS,
  P_NAME,
  P_SAMPLES,
  P_START,
  P_TYPE,
  P_UNIT,
  P_WEIGHTS,
  R_EVENT,
  R_FRAME,
  R_INDEX,
  R_PROFILE,
  R_SAMPLE,
  R_SHARED,
  R_TOP,
  R_WEIGHT,
  S_FRAMES,
  speedscopeProgram,
  T_EXPORTER,
  T_NAME,
  T_PROFILES,
  T_SHARED,
  T_VERSION,
} from "./speedscope-program.ts";
import { SPEEDSCOPE_FORMAT } from "./speedscope-units.ts";

/** A shared frame, or the JSON kind an error quotes when it has no string name. */
export type ScannedFrame = SpeedscopeFrame | { badKind: number };

/** Which records of a spool are one array of a profile. */
export interface SpoolRange {
  kind: number;
  /** First record and number of records (0 unless `kind` is an array). */
  start: number;
  count: number;
}

export interface ProfileHeader {
  kind: number;
  type: unknown;
  name: string | null;
  unit: unknown;
  startValue: number;
  endValue: number;
  samples: SpoolRange;
  weights: SpoolRange;
  events: SpoolRange;
}

export interface SpeedscopeSpools {
  /** Per sample: its JSON kind (i32), its length (i32), then each entry (i32, see `entry`). */
  samples: RecordSpool;
  /** Per weight: its JSON kind (i32), its value (f64; NaN unless a number). */
  weights: RecordSpool;
  /**
   * Per event: kinds (i32: own, type, at, 4 bits each; bits 12–13 the type, 1 for "O", 2 for
   * "C"), its frame entry (i32, see `entry`), its `at` (f64; NaN unless a number).
   */
  events: RecordSpool;
}

export const SAMPLE_HEAD_BYTES = 8;
export const WEIGHT_BYTES = 12;
export const EVENT_BYTES = 16;
export const EVENT_OPEN = 1;
export const EVENT_CLOSE = 2;

export interface SpeedscopeScan {
  topKind: number;
  exporter: string | null;
  version: string | null;
  name: string | null;
  sharedKind: number;
  framesKind: number;
  frames: ScannedFrame[];
  profilesKind: number;
  profiles: ProfileHeader[];
  spools: SpeedscopeSpools;
}

/**
 * A frame index as spooled: the index when it is a non-negative integer below 2^31, else
 * minus its JSON kind (what the error quotes; an index this large names no frame anyway).
 */
function entry(kind: number, value: number): number {
  return kind === TAG_NUMBER && Number.isInteger(value) && value >= 0 && value < 2 ** 31
    ? value
    : -kind;
}

const scanOptions = (limits: AdapterLimits): JsonScanOptions => ({
  format: SPEEDSCOPE_FORMAT,
  maxDepth: limits.maxNestingDepth,
  truncateJsonAt: 1 << 30,
});

/** The file in chunks, as it streams in. */
export async function scanSpeedscope(
  chunks: AsyncIterable<Uint8Array>,
  limits: AdapterLimits,
  spools: SpeedscopeSpools,
): Promise<SpeedscopeScan> {
  const reader = new SpeedscopeBatchReader(limits.maxEvents, spools);
  const scanner = await JsonScanner.open(speedscopeProgram(), scanOptions(limits));
  await scanner.scanChunks(chunks, reader.onBatch);
  return reader.result();
}

class SpeedscopeBatchReader {
  /** Frame indexes of the sample being read, and its record serial. */
  private stack: number[] = [];
  private stackOwner = -1;
  /** Frames of the `frames` array being read, and the `shared` record they belong to. */
  private frameList: ScannedFrame[] = [];
  private framesOwner = -1;
  private framesKind = TAG_ABSENT;
  private frames: ScannedFrame[] = [];
  private profiles: ProfileHeader[] = [];
  /** Samples and events of the current `profiles` array, for the limit. */
  private measured = 0;
  private top: Omit<SpeedscopeScan, "frames" | "framesKind" | "profiles" | "spools"> | null = null;

  constructor(
    private readonly maxEvents: number,
    private readonly spools: SpeedscopeSpools,
  ) {}

  readonly onBatch = (b: JsonBatch): void => {
    for (let r = 0; r < b.count; r++) {
      switch (b.type(r)) {
        case R_INDEX: {
          if (b.parent(r) !== this.stackOwner) {
            this.stack.length = 0;
            this.stackOwner = b.parent(r);
          }
          this.stack.push(entry(b.kind(r, 0), b.num(r, 0)));
          break;
        }
        case R_SAMPLE: {
          const own = b.serial(r) === this.stackOwner;
          const stack = this.stack;
          const n = own ? stack.length : 0;
          const spool = this.spools.samples;
          spool.begin(SAMPLE_HEAD_BYTES + 4 * n);
          spool.i32(b.selfKind(r));
          spool.i32(n);
          for (let k = 0; k < n; k++) spool.i32(stack[k]!);
          break;
        }
        case R_WEIGHT: {
          const kind = b.kind(r, 0);
          const spool = this.spools.weights;
          spool.begin(WEIGHT_BYTES);
          spool.i32(kind);
          spool.f64(kind === TAG_NUMBER ? b.num(r, 0) : Number.NaN);
          break;
        }
        case R_EVENT:
          this.event(b, r);
          break;
        case R_PROFILE:
          this.profile(b, r);
          break;
        case R_FRAME:
          if (b.index(r) === 0 || b.parent(r) !== this.framesOwner) {
            this.frameList = [];
            this.framesOwner = b.parent(r);
          }
          this.frameList.push(frameOf(b, r));
          break;
        case R_SHARED: {
          // The last `shared` object counts; its frames are the last array's.
          const kind = b.kind(r, S_FRAMES);
          const count = kind === TAG_ARRAY ? b.int(r, S_FRAMES) : 0;
          const own = b.serial(r) === this.framesOwner;
          this.framesKind = kind;
          this.frames = count > 0 && own ? this.frameList.slice(this.frameList.length - count) : [];
          this.frameList = [];
          break;
        }
        case R_TOP:
          this.top = {
            topKind: b.selfKind(r),
            exporter: b.string(r, T_EXPORTER) ?? null,
            version: b.string(r, T_VERSION) ?? null,
            name: b.string(r, T_NAME) ?? null,
            sharedKind: b.kind(r, T_SHARED),
            profilesKind: b.kind(r, T_PROFILES),
          };
          if (b.kind(r, T_PROFILES) === TAG_ARRAY) {
            const count = b.int(r, T_PROFILES);
            this.profiles = count === 0 ? [] : this.profiles.slice(this.profiles.length - count);
          }
          break;
      }
    }
  };

  private event(b: JsonBatch, r: number): void {
    const typeKind = b.kind(r, E_TYPE);
    const type = typeKind === TAG_STRING ? b.string(r, E_TYPE) : undefined;
    const code = type === "O" ? 1 : type === "C" ? 2 : 0;
    const atKind = b.kind(r, E_AT);
    const spool = this.spools.events;
    spool.begin(EVENT_BYTES);
    spool.i32(b.selfKind(r) | (typeKind << 4) | (atKind << 8) | (code << 12));
    spool.i32(entry(b.kind(r, E_FRAME), b.num(r, E_FRAME)));
    spool.f64(atKind === TAG_NUMBER ? b.num(r, E_AT) : Number.NaN);
  }

  private profile(b: JsonBatch, r: number): void {
    if (b.index(r) === 0) {
      this.profiles = [];
      this.measured = 0;
    }
    const range = (slot: number, spool: RecordSpool): SpoolRange => {
      const kind = b.kind(r, slot);
      const count = kind === TAG_ARRAY ? b.int(r, slot) : 0;
      return { kind, start: spool.records - count, count };
    };
    // A number too large for a double reads as infinite: not a value, as for JSON.parse's reader.
    const number = (slot: number) =>
      b.kind(r, slot) === TAG_NUMBER && Number.isFinite(b.num(r, slot)) ? b.num(r, slot) : 0;
    const header: ProfileHeader = {
      kind: b.selfKind(r),
      type: b.value(r, P_TYPE),
      name: b.string(r, P_NAME) ?? null,
      unit: b.value(r, P_UNIT),
      startValue: number(P_START),
      endValue: number(P_END),
      samples: range(P_SAMPLES, this.spools.samples),
      weights: range(P_WEIGHTS, this.spools.weights),
      events: range(P_EVENTS, this.spools.events),
    };
    this.profiles.push(header);
    // Checked as each profile ends, so a file far over the limit stops being read early.
    if (header.kind === TAG_OBJECT) {
      this.measured +=
        header.type === "sampled"
          ? header.samples.count
          : header.type === "evented"
            ? header.events.count
            : 0;
      if (this.measured > this.maxEvents)
        throw tooLarge(SPEEDSCOPE_FORMAT, "samples and events", this.measured, this.maxEvents);
    }
  }

  result(): SpeedscopeScan {
    const top = this.top ?? {
      topKind: TAG_ABSENT,
      exporter: null,
      version: null,
      name: null,
      sharedKind: TAG_ABSENT,
      profilesKind: TAG_ABSENT,
    };
    return {
      ...top,
      framesKind: this.framesKind,
      frames: this.frames,
      profiles: this.profiles,
      spools: this.spools,
    };
  }
}

const optionalPositive = (kind: number, v: number): number | null =>
  kind === TAG_NUMBER && Number.isInteger(v) && v > 0 && v < 2 ** 31 ? v : null;

function frameOf(b: JsonBatch, r: number): ScannedFrame {
  const kind = b.selfKind(r);
  if (kind !== TAG_OBJECT) return { badKind: kind };
  const name = b.string(r, F_NAME);
  if (name === undefined) return { badKind: b.kind(r, F_NAME) };
  const file = b.string(r, F_FILE);
  return {
    name,
    file: file !== undefined && file !== "" ? file : null,
    line: optionalPositive(b.kind(r, F_LINE), b.num(r, F_LINE)),
    col: optionalPositive(b.kind(r, F_COL), b.num(r, F_COL)),
  };
}
