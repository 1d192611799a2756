/**
 * `perf script` text, line by line, into sampled stacks. A sample is a header line
 * (sample-header.ts) followed by its callchain, leaf first, one frame a line, and a blank
 * line; with `-G` the sampled frame is on the header line and no blank line follows.
 * `srcline` lines (`  file.c:12`) under a frame give it a file and line. `#` lines before
 * the samples are `--header` output; only perf's version is kept from them (the rest
 * names the host). Lines that fit nothing are counted, not guessed at.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import { ownString } from "../common/own-string.ts";
import type { SampledStacks } from "../common/sampled-stacks.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";
import { EventMetrics } from "../common/perf-event-metrics.ts";
import { frameKeyOf, parsePerfFrame, type FrameKind } from "./frame-line.ts";
import { parseSampleHeader, type SampleHeader } from "./sample-header.ts";

export const PERF_SCRIPT_FORMAT = "perf script output";

const SRCLINE = /^\s+(\S.*?):(\d+)$/;
const PERF_VERSION = /^#\s*perf version\s*:\s*(\S+)/;

export class PerfScriptReader {
  samples = 0;
  perfVersion: string | null = null;
  /**
   * Android simpleperf's report_sample.py writes the same text, tab-separated (`comm\tpid
   * [cpu] time:\t\tperiod event:`, frames `addr\tsym (dso)`): the producer is told by the tab.
   */
  producer: "perf" | "simpleperf" = "perf";
  private header: SampleHeader | null = null;
  /** Frame indexes of the sample being read, leaf first. */
  private readonly leafFirst: number[] = [];
  private readonly path: number[] = [];
  private readonly kinds = new Map<number, FrameKind>();
  private readonly frameByText = new Map<string, number>();
  /** Raw text of the last frame read, for a srcline that follows it. */
  private lastFrameText: string | null = null;
  private readonly metrics = new EventMetrics();
  /**
   * pid → its main thread's command, and each pid-known track's pid: a process is named after its
   * main thread.
   */
  private readonly mainComm = new Map<string, string>();
  private readonly trackPid = new Map<number, string>();
  private invalidLines = 0;
  private firstInvalid = "";
  private withoutStack = 0;
  private unnamedJit = 0;
  private unknownFrames = 0;
  private kernelSamples = 0;
  private inlinedFrames = 0;
  private jitSamples = 0;
  private commentLines = 0;
  /** Whole second of the first timed sample: times are kept as ns after it. */
  private baseSeconds: number | null = null;
  private minNs = Number.POSITIVE_INFINITY;
  /** Every value summed: totals are int64 columns, exact only below 2^53. */
  private valueSum = 0;
  private maxNs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly out: SampledStacks,
    private readonly maxSamples: number,
  ) {}

  readonly onLine = (line: string): void => {
    if (this.header === null) {
      this.betweenSamples(line);
      return;
    }
    if (line.trim() === "") {
      this.endSample();
      return;
    }
    const first = line.charCodeAt(0);
    if (first !== 32 && first !== 9) {
      // Not indented: a new sample when the previous one lacked its blank line, else an
      // old-style frame written at column 0.
      const next = parseSampleHeader(line);
      if (next !== null) {
        this.endSample();
        this.beginSample(next);
        return;
      }
    }
    const key = frameKeyOf(line);
    if (key !== null) {
      this.addFrame(key);
      return;
    }
    const src = SRCLINE.exec(line);
    if (src && this.lastFrameText !== null) {
      this.withSource(src[1]!, Number(src[2]));
      return;
    }
    // An indented line that is no frame: a right-aligned sample header after a sample without its
    // blank line.
    const next = parseSampleHeader(line);
    if (next !== null) {
      this.endSample();
      this.beginSample(next);
      return;
    }
    this.invalid(line);
  };

  /** Ends the last sample (a file need not end with a blank line). */
  finish(): void {
    if (this.header !== null) this.endSample();
    for (const [track, pid] of this.trackPid) {
      const comm = this.mainComm.get(pid);
      if (comm !== undefined) this.out.nameProcess(track, comm);
    }
    if (this.samples === 0 && this.invalidLines > 0) {
      throw parseFailed(
        PERF_SCRIPT_FORMAT,
        `no sample header found; line ${JSON.stringify(this.firstInvalid.slice(0, 80))} is ` +
          `neither a sample nor a frame`,
      );
    }
  }

  private betweenSamples(line: string): void {
    if (line.trim() === "") return;
    if (line.startsWith("#")) {
      this.commentLines++;
      const version = PERF_VERSION.exec(line);
      if (version) this.perfVersion = version[1]!;
      return;
    }
    const header = parseSampleHeader(line);
    if (header === null) this.invalid(line);
    else {
      if (this.samples === 0 && /^\S[^\t]*\t\d/.test(line)) this.producer = "simpleperf";
      this.beginSample(header);
    }
  }

  private beginSample(header: SampleHeader): void {
    if (++this.samples > this.maxSamples)
      throw tooLarge(PERF_SCRIPT_FORMAT, "samples", this.samples, this.maxSamples);
    this.header = header;
    this.leafFirst.length = 0;
    this.lastFrameText = null;
    // -G: the sampled frame is on the header line, and the sample ends there.
    if (header.rest !== "") {
      const key = frameKeyOf(header.rest);
      if (key !== null) {
        this.addFrame(key);
        this.endSample();
      }
    }
  }

  /** A frame waits until the next line says whether a srcline names its source. */
  private addFrame(text: string): void {
    this.flushFrame();
    this.lastFrameText = text;
  }

  private flushFrame(): void {
    const text = this.lastFrameText;
    if (text === null) return;
    this.lastFrameText = null;
    this.leafFirst.push(this.frameOf(text, (own) => parsePerfFrame(own)));
  }

  private withSource(file: string, line: number): void {
    const base = this.lastFrameText!;
    this.lastFrameText = null;
    this.leafFirst.push(
      this.frameOf(`${base}\u0000${file}:${line}`, (own) => {
        const [ownBase, ownFile] = own.slice(0, own.lastIndexOf(":")).split("\u0000") as [
          string,
          string,
        ];
        const parsed = parsePerfFrame(ownBase);
        // `??:0` is perf's "no line information".
        return ownFile === "??"
          ? parsed
          : {
              ...parsed,
              record: {
                ...parsed.record,
                file: ownFile,
                line: line > 0 && line < 2 ** 31 ? line : null,
              },
            };
      }),
    );
  }

  /**
   * The frame of a line's text; a new one is parsed from a copy, so it keeps nothing of the chunk
   * the line came from.
   */
  private frameOf(text: string, parse: (own: string) => ReturnType<typeof parsePerfFrame>): number {
    let index = this.frameByText.get(text);
    if (index === undefined) {
      const own = ownString(text);
      const parsed = parse(own);
      const r = parsed.record;
      index = this.out.frames.intern(
        JSON.stringify(["perf", r.language, r.function, r.module, r.file, r.line, r.column]),
        r,
      );
      this.frameByText.set(own, index);
      if (!this.kinds.has(index)) this.kinds.set(index, parsed.kind);
      if (parsed.kind === "inlined") this.inlinedFrames++;
    }
    return index;
  }

  private endSample(): void {
    this.flushFrame();
    const header = this.header!;
    this.header = null;
    const relNs = this.relativeNs(header);
    if (relNs !== null) {
      if (relNs < this.minNs) this.minNs = relNs;
      if (relNs > this.maxNs) this.maxNs = relNs;
    }
    const metric = this.metrics.of(header.event, header.period !== null);
    if (metric === null) {
      this.metrics.skippedSamples++;
      return;
    }
    if (this.leafFirst.length === 0) {
      this.withoutStack++;
      return;
    }
    this.path.length = 0;
    let unnamedJit = false;
    let unknown = false;
    let kernel = false;
    let jit = false;
    for (let k = this.leafFirst.length - 1; k >= 0; k--) {
      const f = this.leafFirst[k]!;
      this.path.push(f);
      const kind = this.kinds.get(f);
      if (kind === "kernel") kernel = true;
      else if (kind === "jit") {
        jit = true;
        if (this.out.frames.records[f]!.symbolization === "absent") unnamedJit = true;
      } else if (kind === "unknown") unknown = true;
    }
    if (unnamedJit) this.unnamedJit++;
    if (unknown) this.unknownFrames++;
    if (kernel) this.kernelSamples++;
    if (jit) this.jitSamples++;
    const track = this.trackOf(header);
    const value = metric.byPeriod ? header.period! : 1;
    this.valueSum += value;
    if (this.valueSum > Number.MAX_SAFE_INTEGER)
      throw tooLarge(
        PERF_SCRIPT_FORMAT,
        "summed sample periods",
        this.valueSum,
        Number.MAX_SAFE_INTEGER,
      );
    this.out
      .metric(metric.metric, metric.unit)
      .add(this.path, track, 1, value, relNs ?? Number.POSITIVE_INFINITY);
  }

  private relativeNs(header: SampleHeader): number | null {
    if (header.seconds === null) return null;
    if (this.baseSeconds === null) {
      this.baseSeconds = header.seconds;
      this.out.setTimeBase(header.seconds * 1e6);
    }
    return (header.seconds - this.baseSeconds) * 1e9 + header.fractionNs;
  }

  private trackOf(header: SampleHeader): number {
    if (header.tid === null) return 0;
    const id = header.pid === null ? `tid:${header.tid}` : `${header.pid}:${header.tid}`;
    const track = this.out.track(id, null, header.comm);
    if (header.pid !== null) {
      this.trackPid.set(track, header.pid);
      if (header.pid === header.tid && header.comm !== null && !this.mainComm.has(header.pid))
        this.mainComm.set(header.pid, header.comm);
    }
    return track;
  }

  private invalid(line: string): void {
    if (this.invalidLines++ === 0) this.firstInvalid = line;
  }

  limitations(): Limitation[] {
    const out: Limitation[] = [];
    if (this.samples === 0)
      out.push({ code: "no_samples", message: "The perf script output holds no samples" });
    for (const event of this.metrics.skipped) {
      out.push({
        code: "event_not_imported",
        message:
          `Samples of event ${event} were not imported: its metric is already taken by another ` +
          `event of the file`,
      });
    }
    if (this.metrics.skippedSamples > 0)
      out.push({
        code: "samples_not_imported",
        message: "Samples of events that were not imported",
        count: this.metrics.skippedSamples,
      });
    if (this.withoutStack > 0)
      out.push({
        code: "samples_without_stack",
        message:
          "Samples printed without a callchain or sampled address (perf script -F without " +
          "ip); they are not attributed to any frame",
        count: this.withoutStack,
      });
    if (this.unnamedJit > 0) {
      out.push({
        code: "unnamed_jit_frames",
        message:
          "Samples in JIT-compiled code that its perf map does not name (run Node with " +
          "--perf-basic-prof, Java with perf-map-agent)",
        count: this.unnamedJit,
      });
    }
    if (this.unknownFrames > 0)
      out.push({
        code: "unknown_frames",
        message:
          "Samples with [unknown] frames: addresses perf could not resolve to a symbol or " +
          "module (missing symbols, JIT code without a perf map, broken frame-pointer " +
          "unwinding)",
        count: this.unknownFrames,
      });
    if (this.invalidLines > 0)
      out.push({
        code: "invalid_lines",
        message:
          `Lines that are neither a sample header nor a frame were skipped ` +
          `(first: ${JSON.stringify(this.firstInvalid.slice(0, 80))})`,
        count: this.invalidLines,
      });
    return out;
  }

  summary(): Record<string, string | number | boolean | null> {
    const span = Number.isFinite(this.minNs) ? this.maxNs - this.minNs : null;
    return {
      samples: this.samples,
      events: this.metrics.events.join(","),
      kernel_samples: this.kernelSamples,
      jit_samples: this.jitSamples,
      inlined_frames: this.inlinedFrames,
      header_lines: this.commentLines,
      sample_span_ns: span,
    };
  }
}
