/**
 * Collapsed stacks, line by line, into sampled stacks: each line's count goes to its
 * stack as `samples` (the count is a number of samples for every stackcollapse script;
 * weights of other tools are kept as they are). Comment lines (`#`, `//`) and blank lines
 * carry nothing; lines without a count are counted as invalid, never guessed at.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { SampledStacks } from "../common/sampled-stacks.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";
import { CacheUse } from "../common/cache-use.ts";
import { ownString } from "../common/own-string.ts";
import {
  collapsedFrame,
  type FrameAnnotation,
  parseCollapsedLine,
  processFrame,
  stackFrames,
} from "./collapsed-line.ts";

/** Stacks whose frames are kept for repeated lines, and their text's total length. */
const MAX_CACHED_STACKS = 1 << 15;
const MAX_CACHED_CHARS = 8 << 20;

export const COLLAPSED_FORMAT = "collapsed stacks";

export class CollapsedReader {
  lines = 0;
  samples = 0;
  private readonly frameByText = new Map<string, number>();
  private readonly annotations = new Map<FrameAnnotation, number>();
  private readonly stackByText = new Map<string, { path: number[]; track: number }>();
  private cachedChars = 0;
  private readonly cacheUse = new CacheUse();
  private readonly path: number[] = [];
  private invalidLines = 0;
  private firstInvalid = "";
  private fractional = 0;
  private comments = 0;

  constructor(
    private readonly out: SampledStacks,
    private readonly maxLines: number,
  ) {}

  readonly onLine = (line: string): void => {
    const t = line.trimStart();
    if (t === "") return;
    if (t.startsWith("#") || t.startsWith("//")) {
      this.comments++;
      return;
    }
    const parsed = parseCollapsedLine(line);
    if (parsed === null) {
      if (this.invalidLines++ === 0) this.firstInvalid = line;
      return;
    }
    if (++this.lines > this.maxLines)
      throw tooLarge(COLLAPSED_FORMAT, "stack lines", this.lines, this.maxLines);
    if (!Number.isInteger(parsed.count)) this.fractional++;
    this.samples += parsed.count;
    if (this.samples > Number.MAX_SAFE_INTEGER)
      throw tooLarge(COLLAPSED_FORMAT, "samples in total", this.samples, Number.MAX_SAFE_INTEGER);
    const cached = this.cacheUse.look();
    const seen = cached ? this.stackByText.get(parsed.stack) : undefined;
    if (seen !== undefined) {
      this.cacheUse.hit();
      this.out.metric("samples", "count").add(seen.path, seen.track, parsed.count, parsed.count);
      return;
    }
    let frames = stackFrames(parsed.stack);
    let track = 0;
    const proc = processFrame(frames[0]!);
    if (proc !== null && frames.length > 1) {
      frames = frames.slice(1);
      track = this.out.track(
        proc.tid === null ? `${proc.pid}` : `${proc.pid}:${proc.tid}`,
        proc.comm,
        proc.tid === null ? null : proc.comm,
      );
    }
    // A remembered path is its own array; otherwise one array serves every line.
    const path = cached ? [] : this.path;
    path.length = 0;
    for (const text of frames) path.push(this.frameOf(text));
    if (cached) this.remember(parsed.stack, path, track);
    this.out.metric("samples", "count").add(path, track, parsed.count, parsed.count);
  };

  /**
   * Keeps a stack's frames for its next lines: files that repeat stacks (one line per sample)
   * skip the split and the frame lookups. Bounded: past the limit the cache starts empty.
   */
  private remember(stack: string, path: number[], track: number): void {
    this.cachedChars += stack.length;
    if (this.stackByText.size >= MAX_CACHED_STACKS || this.cachedChars > MAX_CACHED_CHARS) {
      this.stackByText.clear();
      this.cachedChars = stack.length;
    }
    // A copy: the line is cut from its decoded chunk, which a kept substring would keep alive.
    this.stackByText.set(ownString(stack), { path, track });
  }

  finish(): void {
    if (this.lines === 0 && this.invalidLines > 0) {
      throw parseFailed(
        COLLAPSED_FORMAT,
        `no line of the form "frame;frame count"; ` +
          `line ${JSON.stringify(this.firstInvalid.slice(0, 80))} has no count`,
      );
    }
  }

  private frameOf(text: string): number {
    let index = this.frameByText.get(text);
    if (index === undefined) {
      const { record, annotation } = collapsedFrame(text);
      index = this.out.frames.intern(
        JSON.stringify(["collapsed", record.language, record.function]),
        record,
      );
      this.frameByText.set(text, index);
      this.annotations.set(annotation, (this.annotations.get(annotation) ?? 0) + 1);
    }
    return index;
  }

  limitations(): Limitation[] {
    const out: Limitation[] = [
      {
        code: "no_sample_times",
        message: "Collapsed stacks carry no times or thread order: only per-stack totals",
      },
    ];
    if (this.lines === 0)
      out.push({ code: "no_samples", message: "The file holds no stack lines" });
    if (this.invalidLines > 0)
      out.push({
        code: "invalid_lines",
        message:
          `Lines without a trailing count were skipped ` +
          `(first: ${JSON.stringify(this.firstInvalid.slice(0, 80))})`,
        count: this.invalidLines,
      });
    if (this.fractional > 0)
      out.push({
        code: "fractional_counts",
        message: "Lines whose count is not a whole number: weights, kept as the samples value",
        count: this.fractional,
      });
    return out;
  }

  summary(): Record<string, string | number | boolean | null> {
    return {
      stack_lines: this.lines,
      samples: this.samples,
      comment_lines: this.comments,
      kernel_frames: this.annotations.get("kernel") ?? 0,
      jit_frames: this.annotations.get("jit") ?? 0,
      inlined_frames: this.annotations.get("inlined") ?? 0,
      waker_frames: this.annotations.get("waker") ?? 0,
    };
  }
}
