/**
 * DTrace aggregation output of stacks (`dtrace -n 'profile-997 { @[ustack()] = count(); }'`
 * and the like, what FlameGraph's stackcollapse.pl reads), line by line: an optional
 * header (`CPU ID FUNCTION:NAME` and the probe that printed, e.g. `0 64091 :tick-60s`),
 * then one block per aggregation entry: its frames, innermost first, one per indented
 * line, and the aggregated count on an indented line of its own. Blocks are separated by
 * blank lines. A block that ends without its count, or a line that fits nothing, is
 * counted, not guessed at.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { SampledStacks } from "../common/sampled-stacks.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";
import { dtraceFrame } from "./dtrace-frame.ts";

export const DTRACE_FORMAT = "DTrace stack aggregation";

const COUNT = /^\s+(\d+)\s*$/;
const HEADER = /^\s*CPU\s+ID\s+FUNCTION:NAME\s*$/;
const PROBE = /^\s*\d+\s+\d+\s+\S*:\S*\s*$/;

export class DtraceReader {
  stacks = 0;
  headerLines = 0;
  private readonly leafFirst: number[] = [];
  private readonly path: number[] = [];
  private readonly frameByText = new Map<string, number>();
  private incomplete = 0;
  private invalidLines = 0;
  private firstInvalid = "";
  private countSum = 0;

  constructor(
    private readonly out: SampledStacks,
    private readonly maxStacks: number,
  ) {}

  readonly onLine = (line: string, lineNumber: number): void => {
    if (line.trim() === "") {
      if (this.leafFirst.length > 0) {
        this.incomplete++;
        this.leafFirst.length = 0;
      }
      return;
    }
    if (
      this.stacks === 0 &&
      this.leafFirst.length === 0 &&
      (HEADER.test(line) || PROBE.test(line))
    ) {
      this.headerLines++;
      return;
    }
    const count = COUNT.exec(line);
    if (count) return this.endStack(Number(count[1]), lineNumber);
    if (!/^\s/.test(line)) {
      if (this.invalidLines++ === 0)
        this.firstInvalid = `line ${lineNumber}: ${JSON.stringify(line.slice(0, 80))}`;
      return;
    }
    const text = line.trim();
    let frame = this.frameByText.get(text);
    if (frame === undefined) {
      const parsed = dtraceFrame(text);
      frame = this.out.frames.intern(parsed.key, parsed.record);
      this.frameByText.set(text, frame);
    }
    this.leafFirst.push(frame);
  };

  finish(): void {
    if (this.leafFirst.length > 0) this.incomplete++;
    if (this.stacks === 0 && this.invalidLines > 0)
      throw parseFailed(DTRACE_FORMAT, `no stack with a count found (${this.firstInvalid})`);
  }

  private endStack(count: number, lineNumber: number): void {
    if (this.leafFirst.length === 0) {
      if (this.invalidLines++ === 0)
        this.firstInvalid = `line ${lineNumber}: a count without a stack`;
      return;
    }
    if (++this.stacks > this.maxStacks)
      throw tooLarge(DTRACE_FORMAT, "stacks", this.stacks, this.maxStacks);
    this.countSum += count;
    if (!Number.isSafeInteger(this.countSum))
      throw tooLarge(DTRACE_FORMAT, "summed counts", this.countSum, Number.MAX_SAFE_INTEGER);
    this.path.length = 0;
    for (let i = this.leafFirst.length - 1; i >= 0; i--) this.path.push(this.leafFirst[i]!);
    this.leafFirst.length = 0;
    if (count > 0) this.out.metric("samples", "count").add(this.path, 0, count, count);
  }

  limitations(): Limitation[] {
    const out: Limitation[] = [];
    if (this.stacks === 0)
      out.push({ code: "no_samples", message: "The output holds no stack with a count" });
    out.push({
      code: "no_sample_times",
      message: "An aggregation holds counts per stack, not samples with times",
    });
    if (this.incomplete > 0)
      out.push({
        code: "stacks_without_count",
        message: "Stacks that ended without their count line were not imported",
        count: this.incomplete,
      });
    if (this.invalidLines > 0)
      out.push({
        code: "invalid_lines",
        message:
          `Lines that are neither a frame nor a count were skipped ` +
          `(first: ${this.firstInvalid})`,
        count: this.invalidLines,
      });
    return out;
  }
}
