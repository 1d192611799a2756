/**
 * Interns frames: each distinct frame gets a small integer index for the hot loops and
 * its stable `frame_id` (a hash, computed once per distinct frame, never per event).
 */
import { frameId, type FrameIdentity } from "../../domain/frame-id.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";

export type Symbolization = "complete" | "partial" | "absent";

export interface FrameRecord extends FrameIdentity {
  symbolization: Symbolization;
}

export class FrameRegistry {
  private readonly indexByKey = new Map<string, number>();
  private readonly indexById = new Map<string, number>();
  readonly records: FrameRecord[] = [];
  readonly ids: string[] = [];

  get size(): number {
    return this.records.length;
  }

  /**
   * Index of the frame with the caller's identity key, creating it from `record` on first
   * sight. The key must determine the record (callers build it from the same fields, in
   * an unambiguous encoding with a namespace, e.g. `JSON.stringify(["v8", ...])`).
   */
  intern(key: string, record: FrameRecord | (() => FrameRecord)): number {
    const known = this.indexByKey.get(key);
    if (known !== undefined) return known;
    const frame = typeof record === "function" ? record() : record;
    const id = frameId(frame);
    // Two keys can describe one identity (e.g. a key that carries more detail than the
    // frame id hashes); they share one index so measurements are not split.
    const same = this.indexById.get(id);
    if (same !== undefined) {
      this.indexByKey.set(key, same);
      return same;
    }
    const index = this.records.length;
    this.indexByKey.set(key, index);
    this.indexById.set(id, index);
    this.records.push(frame);
    this.ids.push(id);
    return index;
  }

  /** Frames whose names are missing or partial (`missing_symbols`). */
  countUnsymbolized(): number {
    let count = 0;
    for (const record of this.records) if (record.symbolization !== "complete") count++;
    return count;
  }

  emit(frames: TableBuffer): void {
    for (let i = 0; i < this.records.length; i++) {
      const id = this.ids[i]!;
      const r = this.records[i]!;
      frames.append({
        frame_id: id,
        language: r.language,
        function: r.function,
        module: r.module ?? null,
        file: r.file ?? null,
        line: r.line ?? null,
        column: r.column ?? null,
        symbolization: r.symbolization,
      });
    }
  }
}
