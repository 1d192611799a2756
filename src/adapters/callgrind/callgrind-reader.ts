/**
 * A callgrind file (https://valgrind.org/docs/manual/cl-format.html), line by line, into
 * a CallGraph. Header lines are `key: value` (`events:` and `positions:` give the cost
 * columns, `creator:` the producer, `totals:`/`summary:` the sums the costs must reach).
 * Body lines are position specifications (`ob=`, `fl=`, `fi=`, `fe=`, `fn=`), call
 * specifications (`cob=`, `cfi=`/`cfl=`, `cfn=`, then `calls=` and the cost line of the
 * call), jump specifications (`jump=`/`jcnd=`, then a position line) and cost lines.
 * The callee names (`cob=`, `cfi=`, `cfn=`) apply to the next call only. Lines that fit
 * none of these are counted, not guessed at; costs before any `events:` line or a name
 * reference without its definition make the file malformed.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";
import { CallGraph } from "./call-graph.ts";
import { eventMetric } from "./callgrind-events.ts";
import { CostLineReader, isCostLine } from "./cost-line.ts";
import { NameTable } from "./name-table.ts";

export const CALLGRIND_FORMAT = "callgrind profile";

const SPEC = /^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn|calls|jump|jcnd)=(.*)$/;
const HEADER = /^([A-Za-z][\w -]*?)\s*:\s?(.*)$/;
const CREATOR = /^\s*(\S+?)(?:-| )v?(\d[\w.-]*)/;

export class CallgrindReader {
  readonly graph = new CallGraph();
  creator: string | null = null;
  costLines = 0;
  calls = 0;
  parts = 0;
  private readonly objects = new NameTable(CALLGRIND_FORMAT, "object");
  private readonly files = new NameTable(CALLGRIND_FORMAT, "file");
  private readonly functions = new NameTable(CALLGRIND_FORMAT, "function");
  private readonly costs = new CostLineReader(1);
  /** Metric column of each event column of the current part; -1 when the event is not imported. */
  private columns: number[] | null = null;
  private readonly eventColumn = new Map<string, number>();
  readonly skippedEvents: string[] = [];
  private object: string | null = null;
  private functionFile: string | null = null;
  private currentFile: string | null = null;
  private fn: number | null = null;
  private calleeObject: string | null = null;
  private calleeFile: string | null = null;
  private calleeName: string | null = null;
  /** Set by `calls=`: the next line is the call's cost. */
  private pendingCall: { calls: number; callee: number } | null = null;
  /** Set by `jump=`/`jcnd=`: the next line is the jump's source position, not a cost. */
  private pendingJump = false;
  /** Raw totals per event column from `totals:` or `summary:` (the last one read). */
  private totals: { values: number[] } | null = null;
  private compressedCosts = 0;
  private costsWithoutFunction = 0;
  private invalidLines = 0;
  private firstInvalid = "";

  constructor(private readonly maxCostLines: number) {}

  readonly onLine = (raw: string, lineNumber: number): void => {
    const line = raw.trimEnd();
    if (this.pendingCall !== null) {
      const call = this.pendingCall;
      this.pendingCall = null;
      if (!isCostLine(line)) return this.invalid(line, lineNumber);
      const parsed = this.readCosts(line, lineNumber);
      if (parsed !== null)
        this.graph.addCall(this.fn!, call.callee, call.calls, this.columns!, parsed);
      return;
    }
    if (this.pendingJump) {
      this.pendingJump = false;
      if (isCostLine(line)) {
        // The jump's source position: it updates compression state but carries no cost.
        this.readCosts(line, lineNumber);
        return;
      }
    }
    if (line === "" || line.startsWith("#")) return;
    if (isCostLine(line)) return this.selfCost(line, lineNumber);
    const spec = SPEC.exec(line);
    if (spec) return this.specification(spec[1]!, spec[2]!, lineNumber);
    const header = HEADER.exec(line);
    if (header) return this.header(header[1]!.toLowerCase(), header[2]!.trim(), lineNumber);
    this.invalid(line, lineNumber);
  };

  finish(): void {
    if (this.pendingCall !== null) this.invalid("calls= without its cost line", 0);
    if (this.columns === null)
      throw parseFailed(
        CALLGRIND_FORMAT,
        "no `events:` line: the file does not say what its costs count",
      );
  }

  private header(key: string, value: string, lineNumber: number): void {
    switch (key) {
      case "events": {
        const events = value.split(/\s+/).filter((e) => e !== "");
        if (events.length === 0)
          throw parseFailed(CALLGRIND_FORMAT, `line ${lineNumber}: \`events:\` names no event`);
        this.columns = events.map((event) => this.columnOf(event));
        return;
      }
      case "positions": {
        const names = value.split(/\s+/).filter((e) => e !== "");
        if (names.length === 0 || names.some((n) => !/^(instr|line|addr)$/.test(n)))
          throw parseFailed(
            CALLGRIND_FORMAT,
            `line ${lineNumber}: \`positions:\` must list instr and/or line, ` +
              `found ${JSON.stringify(value.slice(0, 80))}`,
          );
        this.costs.setPositions(names.length);
        return;
      }
      case "creator":
        this.creator = value;
        return;
      case "part":
        this.parts++;
        return;
      case "totals":
      case "summary": {
        const values = value
          .split(/\s+/)
          .filter((v) => v !== "")
          .map(Number);
        if (this.columns !== null && values.every(Number.isSafeInteger)) this.totals = { values };
        return;
      }
      default:
        // version, cmd, pid, thread, desc, event (long names) and producers' own keys: descriptive
        // only.
        return;
    }
  }

  private columnOf(event: string): number {
    const known = this.eventColumn.get(event);
    if (known !== undefined) return known;
    const metric = eventMetric(event);
    let column = -1;
    if (metric !== null && !this.graph.metrics.some((m) => m.metric === metric.metric))
      column = this.graph.metricColumn(metric);
    else this.skippedEvents.push(event);
    this.eventColumn.set(event, column);
    return column;
  }

  private specification(key: string, value: string, lineNumber: number): void {
    switch (key) {
      case "ob":
        this.object = this.objects.resolve(value, lineNumber);
        return;
      case "fl":
        this.functionFile = this.currentFile = this.files.resolve(value, lineNumber);
        return;
      case "fi":
      case "fe":
        // Inlined code from another file inside the current function: the function stays.
        this.currentFile = this.files.resolve(value, lineNumber);
        return;
      case "fn":
        this.fn = this.graph.function(
          this.object,
          this.functionFile,
          this.functions.resolve(value, lineNumber),
          true,
        );
        return;
      case "cob":
        this.calleeObject = this.objects.resolve(value, lineNumber);
        return;
      case "cfi":
      case "cfl":
        this.calleeFile = this.files.resolve(value, lineNumber);
        return;
      case "cfn":
        this.calleeName = this.functions.resolve(value, lineNumber);
        return;
      case "calls":
        return this.call(value, lineNumber);
      default:
        // jump= / jcnd=: control flow inside the function; the next line is its position.
        this.pendingJump = true;
    }
  }

  private call(value: string, lineNumber: number): void {
    const [count, ...targets] = value.trim().split(/\s+/);
    const calls = Number(count);
    if (!Number.isSafeInteger(calls) || calls < 0 || !CostLineReader.validTargets(targets))
      return this.invalid(`calls=${value}`, lineNumber);
    if (this.calleeName === null || this.fn === null) {
      // A call with no target or outside a function cannot be attributed.
      this.resetCallee();
      this.pendingCall = null;
      return this.invalid(`calls=${value}`, lineNumber);
    }
    const callee = this.graph.function(
      this.calleeObject ?? this.object,
      this.calleeFile ?? this.currentFile,
      this.calleeName,
      false,
    );
    this.calls++;
    this.pendingCall = { calls, callee };
    this.resetCallee();
  }

  private resetCallee(): void {
    this.calleeObject = this.calleeFile = this.calleeName = null;
  }

  private selfCost(line: string, lineNumber: number): void {
    const costs = this.readCosts(line, lineNumber);
    if (costs === null) return;
    if (this.fn === null) {
      this.costsWithoutFunction++;
      return;
    }
    const columns = this.columns!;
    for (let i = 0; i < columns.length; i++) {
      const cost = costs[i] ?? 0;
      if (columns[i]! >= 0 && cost !== 0) this.graph.addSelf(this.fn, columns[i]!, cost);
    }
  }

  /** The costs of a cost line, or null (counted) when the line is malformed. */
  private readCosts(line: string, lineNumber: number): number[] | null {
    if (this.columns === null)
      throw parseFailed(
        CALLGRIND_FORMAT,
        `line ${lineNumber} has costs before any \`events:\` line`,
      );
    if (++this.costLines > this.maxCostLines)
      throw tooLarge(CALLGRIND_FORMAT, "cost lines", this.costLines, this.maxCostLines);
    const parsed = this.costs.read(line);
    if (typeof parsed === "string") {
      this.invalid(line, lineNumber);
      return null;
    }
    if (parsed.costs.length > this.columns.length) {
      this.invalid(line, lineNumber);
      return null;
    }
    if (parsed.compressedCost) this.compressedCosts++;
    return parsed.costs;
  }

  private invalid(line: string, lineNumber: number): void {
    if (this.invalidLines++ === 0)
      this.firstInvalid = `line ${lineNumber}: ${JSON.stringify(line.slice(0, 80))}`;
  }

  producer(): [string | null, string | null] {
    if (this.creator === null) return [null, null];
    const m = CREATOR.exec(this.creator);
    return m ? [m[1]!, m[2]!] : [this.creator, null];
  }

  limitations(): Limitation[] {
    const out: Limitation[] = [];
    if (this.costLines === 0)
      out.push({ code: "no_samples", message: "The callgrind file holds no cost lines" });
    out.push({
      code: "no_call_stacks",
      message:
        "Callgrind records cost per function and per caller→callee arc, not call stacks: no " +
        "stacks are published, and inclusive values are self cost plus the cost of calls to " +
        "other functions",
    });
    for (const event of this.skippedEvents)
      out.push({
        code: "event_not_imported",
        message:
          `Costs of event ${event} were not imported: no flameox metric fits it, or another ` +
          `event of the file already took its metric`,
      });
    if (this.compressedCosts > 0)
      out.push({
        code: "compressed_costs",
        message:
          "Cost columns written with subposition compression (*, +N, -N), which the " +
          "callgrind format allows only for positions; read relative to the previous cost " +
          "line, as speedscope does",
        count: this.compressedCosts,
      });
    if (this.costsWithoutFunction > 0)
      out.push({
        code: "costs_without_function",
        message: "Cost lines before any fn= line were not attributed to a function",
        count: this.costsWithoutFunction,
      });
    if (this.invalidLines > 0)
      out.push({
        code: "invalid_lines",
        message: `Lines that fit no callgrind line kind were skipped (first: ${this.firstInvalid})`,
        count: this.invalidLines,
      });
    const totals = this.totals;
    // Each part of a multi-part file has its own totals; only a single part's can be checked.
    if (totals !== null && this.columns !== null && this.parts <= 1) {
      const columns = this.columns;
      const differ = columns.some(
        (c, i) =>
          c >= 0 && totals.values[i] !== undefined && totals.values[i] !== this.graph.selfTotal(c),
      );
      if (differ)
        out.push({
          code: "totals_mismatch",
          message:
            "The self costs do not add up to the file's totals:/summary: line (a truncated " +
            "or edited file)",
        });
    }
    return out;
  }
}
