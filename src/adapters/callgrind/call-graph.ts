/**
 * What a callgrind file measures: each function's own cost per event (the cost lines
 * under its `fn=`), and per call arc the number of calls and their inclusive cost (the
 * cost line after `calls=`). It records no call stacks, so the evidence is frames,
 * frame_measurements and call_edges, without `stacks`.
 *
 * A function is its object, file and name. A call names its target with `cob=`/`cfi=`/
 * `cfn=`, defaulting to the caller's object and current file; since producers differ on
 * which file that is (the function's `fl=` or the inlined `fi=`), a target that was never
 * defined under that exact key is matched at the end to the one function defined with its
 * object and name (or, failing that, with its name alone).
 *
 * Inclusive cost is self cost plus the cost of calls to *other* functions, as
 * callgrind_annotate's `--inclusive=yes` sums it, without the calls a function makes to
 * itself (which are already inside its own cost: callgrind separates recursion levels as
 * `fib'2`, whose calls to itself would otherwise count it many times over). Mutual
 * recursion (a cycle through two or more functions) still counts some cost more than
 * once; the functions on such cycles are counted in a limitation.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import { FrameRegistry } from "../common/frame-registry.ts";
import { languageOf } from "../common/source-language.ts";
import type { EventMetric } from "./callgrind-events.ts";

interface FunctionKey {
  object: string | null;
  file: string | null;
  name: string;
  defined: boolean;
}

/** Valgrind names code it has no symbol for by its address. */
const ADDRESS_NAME = /^0x[0-9a-fA-F]+$/;
const UNKNOWN = "???";

export class CallGraph {
  private readonly keys: FunctionKey[] = [];
  private readonly keyIndex = new Map<string, number>();
  /** Self cost per metric column, per function key. */
  private readonly self: number[][] = [];
  private readonly edgeIndex = new Map<string, number>();
  private readonly edgeCaller: number[] = [];
  private readonly edgeCallee: number[] = [];
  private readonly edgeCalls: number[] = [];
  private readonly edgeCost: number[][] = [];
  readonly metrics: EventMetric[] = [];

  /** The column of a metric, added on first use. */
  metricColumn(metric: EventMetric): number {
    const found = this.metrics.findIndex((m) => m.metric === metric.metric);
    if (found >= 0) return found;
    this.metrics.push(metric);
    this.self.push([]);
    this.edgeCost.push([]);
    return this.metrics.length - 1;
  }

  function(object: string | null, file: string | null, name: string, defined: boolean): number {
    const clean = (s: string | null) => (s === null || s === "" || s === UNKNOWN ? null : s);
    // NUL cannot occur in a line of text, so the key is unambiguous (and cheaper than JSON).
    const key = `${clean(object) ?? "\u0001"}\u0000${clean(file) ?? "\u0001"}\u0000${name}`;
    let index = this.keyIndex.get(key);
    if (index === undefined) {
      index = this.keys.push({ object: clean(object), file: clean(file), name, defined }) - 1;
      this.keyIndex.set(key, index);
    } else if (defined) this.keys[index]!.defined = true;
    return index;
  }

  addSelf(fn: number, column: number, cost: number): void {
    const row = this.self[column]!;
    while (row.length <= fn) row.push(0);
    row[fn]! += cost;
  }

  addCall(
    caller: number,
    callee: number,
    calls: number,
    columns: readonly number[],
    costs: readonly number[],
  ): void {
    const key = `${caller},${callee}`;
    let e = this.edgeIndex.get(key);
    if (e === undefined) {
      e = this.edgeCaller.push(caller) - 1;
      this.edgeCallee.push(callee);
      this.edgeCalls.push(0);
      for (const row of this.edgeCost) row.push(0);
      this.edgeIndex.set(key, e);
    }
    this.edgeCalls[e]! += calls;
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i]!;
      if (column >= 0) this.edgeCost[column]![e]! += costs[i] ?? 0;
    }
  }

  /** Raw self cost per metric column, summed (for the `totals:` check). */
  selfTotal(column: number): number {
    return (this.self[column] ?? []).reduce((a, b) => a + b, 0);
  }

  get edgeCount(): number {
    return this.edgeCaller.length;
  }

  /** Each key's function: itself when defined, else the one definition it can only mean. */
  private canonical(): number[] {
    const byObjectName = new Map<string, number[]>();
    const byName = new Map<string, number[]>();
    this.keys.forEach((k, i) => {
      if (!k.defined) return;
      const on = JSON.stringify([k.object, k.name]);
      byObjectName.set(on, [...(byObjectName.get(on) ?? []), i]);
      byName.set(k.name, [...(byName.get(k.name) ?? []), i]);
    });
    return this.keys.map((k, i) => {
      if (k.defined) return i;
      const same = byObjectName.get(JSON.stringify([k.object, k.name]));
      if (same?.length === 1) return same[0]!;
      const named = byName.get(k.name);
      return named?.length === 1 ? named[0]! : i;
    });
  }

  /** Writes frames, frame_measurements and call_edges; returns counts for the limitations. */
  emit(tables: { frames: TableBuffer; frame_measurements: TableBuffer; call_edges: TableBuffer }): {
    frames: number;
    unsymbolized: number;
    cycleFunctions: number;
    unknownCallCounts: number;
  } {
    const canon = this.canonical();
    const registry = new FrameRegistry();
    const frameOf: number[] = canon.map((c) => {
      const k = this.keys[c]!;
      return registry.intern(JSON.stringify(["callgrind", k.object, k.file, k.name]), () => ({
        language: languageOf(k.file),
        function: k.name,
        module: k.object,
        file: k.file,
        line: null,
        column: null,
        symbolization: ADDRESS_NAME.test(k.name) ? "absent" : "complete",
      }));
    });
    const n = registry.size;
    // Edges between frames (keys merged into one frame merge their edges too).
    const edges = new Map<
      number,
      { caller: number; callee: number; calls: number; cost: number[] }
    >();
    for (let e = 0; e < this.edgeCaller.length; e++) {
      const caller = frameOf[this.edgeCaller[e]!]!;
      const callee = frameOf[this.edgeCallee[e]!]!;
      const id = caller * n + callee;
      let edge = edges.get(id);
      if (!edge)
        edges.set(id, (edge = { caller, callee, calls: 0, cost: this.metrics.map(() => 0) }));
      edge.calls += this.edgeCalls[e]!;
      this.metrics.forEach((_, m) => (edge!.cost[m]! += this.edgeCost[m]![e]!));
    }
    const callsInto = new Array<number>(n).fill(0);
    let unknownCallCounts = 0;
    for (const edge of edges.values()) {
      if (edge.caller !== edge.callee) callsInto[edge.callee]! += edge.calls;
      if (edge.calls === 0) unknownCallCounts++;
    }
    registry.emit(tables.frames);
    this.metrics.forEach((metric, m) => {
      const self = new Array<number>(n).fill(0);
      const inclusive = new Array<number>(n).fill(0);
      (this.self[m] ?? []).forEach((cost, key) => {
        self[frameOf[key]!]! += cost;
        inclusive[frameOf[key]!]! += cost;
      });
      for (const edge of edges.values())
        if (edge.caller !== edge.callee) inclusive[edge.caller]! += edge.cost[m]!;
      for (let f = 0; f < n; f++) {
        if (self[f] === 0 && inclusive[f] === 0) continue;
        tables.frame_measurements.append({
          frame_id: registry.ids[f]!,
          metric: metric.metric as FrameMetric,
          unit: metric.unit,
          self_value: Math.round(self[f]! * metric.scale),
          inclusive_value: Math.round(inclusive[f]! * metric.scale),
          // Callgrind counts calls, not samples: both sample columns hold the calls into the
          // function.
          self_samples: callsInto[f]!,
          inclusive_samples: callsInto[f]!,
          process_name: null,
          thread_name: null,
          track_id: null,
        });
      }
      for (const edge of edges.values()) {
        if (edge.cost[m] === 0 && edge.calls === 0) continue;
        tables.call_edges.append({
          metric: metric.metric,
          parent_frame_id: registry.ids[edge.caller]!,
          child_frame_id: registry.ids[edge.callee]!,
          sample_count: edge.calls,
          duration_ns: Math.round(edge.cost[m]! * metric.scale),
        });
      }
    });
    return {
      frames: n,
      unsymbolized: registry.countUnsymbolized(),
      cycleFunctions: functionsOnCycles(n, [...edges.values()]),
      unknownCallCounts,
    };
  }
}

/**
 * Functions on a call cycle through two or more functions (Tarjan's strongly connected components).
 */
function functionsOnCycles(n: number, edges: { caller: number; callee: number }[]): number {
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const e of edges) if (e.caller !== e.callee) out[e.caller]!.push(e.callee);
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const stack: number[] = [];
  let next = 0;
  let onCycles = 0;
  // Iterative, so a deep call graph cannot overflow the JS stack.
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    index[root] = low[root] = next++;
    stack.push(root);
    onStack[root] = true;
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const [v, i] = top;
      if (i < out[v]!.length) {
        top[1]++;
        const w = out[v]![i]!;
        if (index[w] === -1) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = true;
          work.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        let size = 0;
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = false;
          size++;
        } while (w !== v);
        if (size > 1) onCycles += size;
      }
    }
  }
  return onCycles;
}
