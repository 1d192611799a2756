/**
 * simpleperf's records into sampled stacks. simpleperf writes the samples first and the
 * files (with their symbol tables) and threads after them, so a sample cannot be named
 * when it is read: each is kept in compact form (its thread, time, event and count, and
 * its callchain as indexes of distinct (file, symbol, execution type) sites, 4 bytes an
 * entry) in a RecordSpool, which spills to scratch space past its memory budget, and the
 * stacks are built once the last record has been read. Samples are
 * weighted by their event count under the event's metric (`cpu-clock` → `cpu_time` in
 * ns), as perf's are (common/perf-event-metrics.ts).
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import { EventMetrics } from "../common/perf-event-metrics.ts";
import type { RecordSpool } from "../common/record-spool.ts";
import type { SampledStacks } from "../common/sampled-stacks.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";
import {
  type DecodedRecord,
  type FileRecord,
  type MetaInfoRecord,
  type SampleRecord,
  SIMPLEPERF_FORMAT,
  simpleperfRecord,
  uint64,
} from "./schema.ts";
import { simpleperfFrame } from "./simpleperf-frame.ts";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export class SimpleperfReader {
  samples = 0;
  private meta: MetaInfoRecord | null = null;
  private readonly files = new Map<number, FileRecord>();
  private readonly threads = new Map<number, { pid: number | null; name: string | null }>();
  private lostSamples = 0;
  private recordedSamples: number | null = null;
  private contextSwitches = 0;
  private unwindingErrors = 0;
  private withoutStack = 0;
  private unknownKinds = 0;
  /**
   * Per sample, in order: thread, event type (i32), event count, ns after the first timed
   * sample's microsecond or NaN when untimed (f64), callchain length (i32), then the
   * callchain, leaf first, as site indexes (i32 each).
   */
  private readonly spool: RecordSpool;
  // Sites: distinct (file, symbol, execution type).
  private readonly siteByKey = new Map<number, Map<number, number>>();
  private readonly siteFile: number[] = [];
  private readonly siteSymbol: number[] = [];
  private readonly siteExecution: number[] = [];
  private baseNs: bigint | null = null;
  /** How events became metrics, once `finish` has run. */
  private metrics: EventMetrics | null = null;
  private minNs = Number.POSITIVE_INFINITY;
  private maxNs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly maxSamples: number,
    spool: RecordSpool,
  ) {
    this.spool = spool;
  }

  readonly onRecord = (body: Uint8Array): void => {
    let record: DecodedRecord;
    try {
      record = simpleperfRecord().decode(body) as unknown as DecodedRecord;
    } catch (error) {
      throw parseFailed(
        SIMPLEPERF_FORMAT,
        `a record is not a valid Record message ` +
          `(${error instanceof Error ? error.message : String(error)})`,
        error,
      );
    }
    switch (record.record_data) {
      case "sample":
        this.sample(record.sample!);
        break;
      case "file": {
        const file = record.file!;
        this.files.set(file.id ?? 0, file);
        break;
      }
      case "thread": {
        const t = record.thread!;
        this.threads.set(t.thread_id ?? 0, {
          pid: Object.hasOwn(t, "process_id") ? t.process_id! : null,
          name: t.thread_name || null,
        });
        break;
      }
      case "meta_info":
        this.meta = record.meta_info!;
        break;
      case "lost":
        this.recordedSamples = Number(uint64(record.lost!.sample_count));
        this.lostSamples = Number(uint64(record.lost!.lost_count));
        break;
      case "context_switch":
        this.contextSwitches++;
        break;
      default:
        // A record kind newer than this schema: its fields are unknown to us.
        this.unknownKinds++;
    }
  };

  private sample(s: SampleRecord): void {
    if (++this.samples > this.maxSamples)
      throw tooLarge(SIMPLEPERF_FORMAT, "samples", this.samples, this.maxSamples);
    const count = uint64(s.event_count);
    if (count > MAX_SAFE)
      throw tooLarge(
        SIMPLEPERF_FORMAT,
        "events counted in one sample",
        Number(count),
        Number.MAX_SAFE_INTEGER,
      );
    const rel = Object.hasOwn(s, "time") ? this.timeOf(uint64(s.time)) : Number.NaN;
    if ((s.unwinding_result?.error_code ?? 0) !== 0) this.unwindingErrors++;
    const chain = s.callchain;
    const spool = this.spool;
    spool.begin(28 + 4 * chain.length);
    spool.i32(s.thread_id ?? 0);
    spool.i32(s.event_type_id ?? 0);
    spool.f64(Number(count));
    spool.f64(rel);
    spool.i32(chain.length);
    for (const entry of chain)
      spool.i32(this.site(entry.file_id ?? 0, entry.symbol_id ?? -1, entry.execution_type ?? 0));
  }

  private timeOf(ns: bigint): number {
    if (this.baseNs === null) this.baseNs = (ns / 1000n) * 1000n;
    const rel = Number(ns - this.baseNs);
    if (rel < this.minNs) this.minNs = rel;
    if (rel > this.maxNs) this.maxNs = rel;
    return rel;
  }

  private site(file: number, symbol: number, execution: number): number {
    const key = file * 8 + (execution & 7);
    let bySymbol = this.siteByKey.get(key);
    if (bySymbol === undefined) this.siteByKey.set(key, (bySymbol = new Map()));
    // One site for every unnamed entry of a file: they become one [unknown] frame.
    const sym = symbol < 0 ? -1 : symbol;
    let index = bySymbol.get(sym);
    if (index === undefined) {
      index = this.siteFile.push(file) - 1;
      this.siteSymbol.push(sym);
      this.siteExecution.push(execution);
      bySymbol.set(sym, index);
    }
    return index;
  }

  /** Names every site, then adds every sample to `out`, root first, on its thread's track. */
  finish(out: SampledStacks): void {
    const frames = this.siteFile.map((file, i) =>
      this.frameOf(out, file, this.siteSymbol[i]!, this.siteExecution[i]!),
    );
    if (this.baseNs !== null) out.setTimeBase(Number(this.baseNs / 1000n));
    const metrics = new EventMetrics();
    const eventNames = this.meta?.event_type ?? [];
    const tracks = new Map<number, number>();
    const path: number[] = [];
    const samples = this.spool.reader();
    for (let i = 0; i < this.samples; i++) {
      samples.need(28);
      const tid = samples.i32();
      const typeId = samples.i32();
      const eventCount = samples.f64();
      const rel = samples.f64();
      const length = samples.i32();
      samples.need(4 * length);
      const metric = metrics.of(eventNames[typeId] ?? `event ${typeId}`, true);
      if (metric === null) {
        for (let k = 0; k < length; k++) samples.i32();
        metrics.skippedSamples++;
        continue;
      }
      if (length === 0) {
        this.withoutStack++;
        continue;
      }
      path.length = length;
      for (let k = length - 1; k >= 0; k--) path[k] = frames[samples.i32()]!;
      let track = tracks.get(tid);
      if (track === undefined) tracks.set(tid, (track = this.trackOf(out, tid)));
      out
        .metric(metric.metric, metric.unit)
        .add(
          path,
          track,
          1,
          metric.byPeriod ? eventCount : 1,
          Number.isNaN(rel) ? Number.POSITIVE_INFINITY : rel,
        );
    }
    this.metrics = metrics;
  }

  private frameOf(out: SampledStacks, fileId: number, symbolId: number, execution: number): number {
    const file = this.files.get(fileId);
    if (file === undefined)
      throw parseFailed(
        SIMPLEPERF_FORMAT,
        `a callchain names file ${fileId}, which no File record describes`,
      );
    if (symbolId >= file.symbol.length) {
      throw parseFailed(
        SIMPLEPERF_FORMAT,
        `a callchain names symbol ${symbolId} of file ${fileId} (${file.path ?? ""}), whose ` +
          `table has ${file.symbol.length}`,
      );
    }
    const record = simpleperfFrame(
      file.path ?? "",
      symbolId < 0 ? null : file.symbol[symbolId]!,
      execution,
    );
    return out.frames.intern(
      JSON.stringify(["simpleperf", record.language, record.function, record.module]),
      record,
    );
  }

  /**
   * A thread's track: `pid:tid` named after the thread and its process's main thread, when a Thread
   * record says.
   */
  private trackOf(out: SampledStacks, tid: number): number {
    const thread = this.threads.get(tid);
    if (thread === undefined || thread.pid === null)
      return out.track(`tid:${tid}`, null, thread?.name ?? null);
    const main = this.threads.get(thread.pid);
    const process =
      main?.name ??
      (thread.pid === tid ? thread.name : null) ??
      this.meta?.app_package_name ??
      null;
    return out.track(`${thread.pid}:${tid}`, process, thread.name);
  }

  limitations(): Limitation[] {
    const out: Limitation[] = [];
    if (this.samples === 0)
      out.push({ code: "no_samples", message: "The simpleperf file holds no samples" });
    for (const event of this.metrics?.skipped ?? []) {
      out.push({
        code: "event_not_imported",
        message:
          `Samples of event ${event} were not imported: its metric is already taken by another ` +
          `event of the file`,
      });
    }
    if ((this.metrics?.skippedSamples ?? 0) > 0)
      out.push({
        code: "samples_not_imported",
        message: "Samples of events that were not imported",
        count: this.metrics!.skippedSamples,
      });
    if (this.withoutStack > 0)
      out.push({
        code: "samples_without_stack",
        message: "Samples without a callchain; they are not attributed to any frame",
        count: this.withoutStack,
      });
    if (this.lostSamples > 0)
      out.push({
        code: "lost_samples",
        message:
          "Samples the kernel dropped while recording (simpleperf's lost count): totals undercount",
        count: this.lostSamples,
      });
    if (this.unwindingErrors > 0)
      out.push({
        code: "incomplete_callchains",
        message:
          "Samples whose stack simpleperf could not unwind completely (their callchains stop " +
          "early)",
        count: this.unwindingErrors,
      });
    if (this.contextSwitches > 0) {
      out.push({
        code: "context_switches_not_imported",
        message:
          "Context switch records (--trace-offcpu) were not turned into off-CPU time; " +
          "sched_switch samples are counted as samples",
        count: this.contextSwitches,
      });
    }
    if (this.unknownKinds > 0)
      out.push({
        code: "unknown_records",
        message: "Records of a kind this reader does not know were skipped",
        count: this.unknownKinds,
      });
    return out;
  }

  summary(): Record<string, string | number | boolean | null> {
    const meta = this.meta;
    return {
      samples: this.samples,
      events: (meta?.event_type ?? []).join(","),
      recorded_samples: this.recordedSamples,
      lost_samples: this.lostSamples,
      context_switches: this.contextSwitches,
      app_package_name: meta?.app_package_name || null,
      app_type: meta?.app_type || null,
      android_sdk_version: meta?.android_sdk_version || null,
      android_build_type: meta?.android_build_type || null,
      trace_offcpu: meta?.trace_offcpu ?? null,
      files: this.files.size,
      sample_span_ns: Number.isFinite(this.minNs) ? this.maxNs - this.minNs : null,
    };
  }
}
