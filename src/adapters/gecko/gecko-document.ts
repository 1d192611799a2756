/**
 * The document-level rules of a Firefox Profiler file over streamed parts: which value
 * is the profile (the document, or the devtools export's `profile` when the document has
 * no `meta` object), its shape (`meta.preprocessedProfileVersion`), and the order threads
 * are read in (the root's threads, then each child process's, depth first, as Firefox
 * nests them). A root thread is read as soon as what it needs is known (the root's meta;
 * for a processed thread without its own strings or libs, the root's `shared` and `libs`),
 * so a file in the usual key order holds one thread's parts at a time; threads that come
 * before what they need (child processes' threads, whose offsets come from their meta;
 * every thread of a devtools export, whose root is known only at its end) are held, with
 * their samples and markers spilled, until it is.
 */
import type { SpillSpace } from "../adapter.ts";
import { expectationFailed, parseFailed } from "../json-guard.ts";
import { JsonScanner } from "../wasm/json-scanner.ts";
import { sampleOfKind, TAG_ABSENT, TAG_ARRAY, TAG_OBJECT, TAG_STRING } from "../wasm/json-batch.ts";
import type { GeckoEvidence, ProfileFacts } from "./gecko-evidence.ts";
import { R_CHILD, R_PROFILE, threadProgram } from "./gecko-program.ts";
import { GeckoRecords, type ProcessParts } from "./gecko-records.ts";
import { GECKO_FORMAT, type ProfileCounts } from "./gecko-thread.ts";
import { processedContext, processedThread } from "./processed-thread.ts";
import { rawThread } from "./raw-thread.ts";
import type { ThreadParts } from "./thread-parts.ts";
import { SPILL_BLOCK } from "./cell-column.ts";

const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

interface HeldThread {
  parts: ThreadParts;
  process: ProcessParts;
  index: number;
}

export class GeckoDocument {
  readonly records: GeckoRecords;
  readonly counts: ProfileCounts = { unpairedMarkers: 0, allocations: 0, cpuDeltas: 0 };
  private root: ProcessParts | null = null;
  private facts: ProfileFacts | null = null;
  /** Root threads waiting, in order. */
  private readonly queue: HeldThread[] = [];
  /** Threads of processes other than the root (read at the end, if the root is an ancestor). */
  private readonly held: HeldThread[] = [];
  private nested: JsonScanner | null = null;

  constructor(
    private readonly evidence: GeckoEvidence,
    private readonly spill: SpillSpace | null,
    private readonly maxDepth: number,
    private readonly block = SPILL_BLOCK,
    maxEvents = Number.POSITIVE_INFINITY,
  ) {
    this.records = new GeckoRecords(
      {
        thread: (parts, process, index) => this.onThread(parts, process, index),
        processChanged: (process) => this.onProcess(process),
      },
      spill,
      block,
      maxEvents,
    );
  }

  private onThread(parts: ThreadParts, process: ProcessParts | null, index: number): void {
    if (process === null) return parts.dispose();
    if (this.root !== null && !this.descends(process)) return parts.dispose();
    const held = { parts, process, index };
    if (this.root !== null && process === this.root) {
      this.queue.push(held);
      this.pump(false);
      if (this.queue.includes(held)) parts.park();
    } else {
      parts.park();
      this.held.push(held);
    }
  }

  private onProcess(process: ProcessParts): void {
    if (this.root === null) {
      const doc = this.records.doc;
      if (doc === null) return;
      // The document is the profile once its meta is an object; else (at its end) `profile` is.
      if (process === doc && doc.meta !== null && doc.meta.kind === TAG_OBJECT) this.setRoot(doc);
      else if (process === doc && doc.closed) {
        const profile = [...this.records.processes.values()].find(
          (p) => p.type === R_PROFILE && p.parent === doc,
        );
        this.setRoot(
          (doc.meta === null || doc.meta.kind !== TAG_OBJECT) &&
            profile !== undefined &&
            profile.kind === TAG_OBJECT
            ? profile
            : doc,
        );
      } else return;
    }
    if (process === this.root) this.pump(false);
  }

  private setRoot(root: ProcessParts): void {
    this.root = root;
    // Threads held before the root was known: the root's join the queue, others wait or go.
    const held = this.held.splice(0);
    for (const h of held) {
      if (h.process === root) this.queue.push(h);
      else if (this.descends(h.process)) this.held.push(h);
      else h.parts.dispose();
    }
  }

  /** Whether a process is the root or a child process below it. */
  private descends(process: ProcessParts): boolean {
    for (let p: ProcessParts | null = process; p !== null; p = p.parent) {
      if (p === this.root) return true;
      if (p.type !== R_CHILD) return false;
    }
    return false;
  }

  /** The root's facts, once its meta is known (checked as the reader checks them first). */
  private rootFacts(final: boolean): ProfileFacts | null {
    if (this.facts !== null) return this.facts;
    const root = this.root;
    if (root === null) return null;
    const meta = root.meta;
    if (meta === null && !final) return null;
    const doc = this.records.doc!;
    if (final && doc.kind !== TAG_OBJECT)
      throw expectationFailed(GECKO_FORMAT, "the top level", "an object", sampleOfKind(doc.kind));
    if (meta === null || meta.kind !== TAG_OBJECT)
      throw expectationFailed(GECKO_FORMAT, "meta", "an object", sampleOfKind(meta?.kind ?? 0));
    if (!final && root.threadsKind === TAG_ABSENT && this.queue.length === 0) return null;
    if (root.threadsKind !== TAG_ARRAY && (final || root.threadsKind !== TAG_ABSENT))
      throw expectationFailed(GECKO_FORMAT, "threads", "an array", sampleOfKind(root.threadsKind));
    const processed = num(meta.processedVersion);
    if (!processed && (!num(meta.version) || meta.version < 3))
      throw parseFailed(
        GECKO_FORMAT,
        `expected meta.version to be 3 or later but found ${JSON.stringify(meta.version)}`,
      );
    this.facts = {
      shape: processed ? "processed" : "raw",
      version: processed
        ? (meta.processedVersion as number)
        : num(meta.version)
          ? meta.version
          : null,
      product: typeof meta.product === "string" ? meta.product : null,
      intervalMs: num(meta.interval) && meta.interval > 0 ? meta.interval : 1,
      counters: 0,
    };
    return this.facts;
  }

  /** Reads the queued root threads whose needs are known (all of them at the end). */
  private pump(final: boolean): void {
    while (this.queue.length > 0) {
      const facts = this.rootFacts(final);
      if (facts === null) return;
      const next = this.queue[0]!;
      if (facts.shape === "processed" && !final && !this.processedReady(next.parts)) return;
      this.queue.shift();
      this.read(next, "", 0, facts);
    }
  }

  /** Whether what a processed thread may need from its root has been read. */
  private processedReady(t: ThreadParts): boolean {
    const root = this.root!;
    const ownStrings = t.stringArrayKind === TAG_ARRAY || t.stringTableKind === TAG_ARRAY;
    const usesSources = t.tables.funcTable.columnKinds[2] !== TAG_ABSENT;
    if ((!ownStrings || usesSources) && root.shared === null) return false;
    return t.libsKind === TAG_ARRAY || root.libsKind !== TAG_ABSENT;
  }

  private read(h: HeldThread, path: string, offsetMs: number, facts: ProfileFacts): void {
    const where = `${path}threads[${h.index}]`;
    try {
      if (facts.shape === "processed") {
        // Built per thread: the root's `shared` or `libs` may have come since the last one.
        const context = processedContext(
          this.root!.shared,
          this.root!.libsKind,
          this.root!.libs,
          h.parts.strings,
        );
        this.evidence.addThread(
          processedThread(h.parts, where, context, this.counts),
          facts.intervalMs,
        );
      } else {
        const parts =
          h.parts.selfKind === TAG_STRING ? this.parseThreadString(h.parts, where) : h.parts;
        try {
          this.evidence.addThread(rawThread(parts, where, offsetMs, this.counts), facts.intervalMs);
        } finally {
          if (parts !== h.parts) parts.dispose();
        }
      }
    } finally {
      h.parts.dispose();
    }
  }

  /** Gecko before version 4 wrote each thread as a JSON string: scanned by a second scanner. */
  private parseThreadString(t: ThreadParts, where: string): ThreadParts {
    let parsed: ThreadParts | null = null;
    const records = new GeckoRecords(
      {
        thread: (parts) => {
          parsed = parts;
        },
        processChanged: () => {},
      },
      this.spill,
      this.block,
    );
    this.nested = JsonScanner.reopenSync(this.nested, threadProgram(), {
      format: GECKO_FORMAT,
      maxDepth: this.maxDepth,
      truncateJsonAt: 1 << 30,
    });
    try {
      this.nested.scanWhole(new TextEncoder().encode(t.text!), records.onBatch);
    } catch (error) {
      throw parseFailed(GECKO_FORMAT, `${where} is a string that is not a JSON thread`, error);
    }
    if (parsed === null)
      throw parseFailed(GECKO_FORMAT, `${where} is a string that is not a JSON thread`);
    return parsed;
  }

  /** The document ended: everything held is read, in the reader's order. */
  finish(): ProfileFacts {
    const doc = this.records.doc;
    if (doc === null || doc.kind !== TAG_OBJECT)
      throw expectationFailed(
        GECKO_FORMAT,
        "the top level",
        "an object",
        sampleOfKind(doc?.kind ?? TAG_ABSENT),
      );
    if (this.root === null) this.onProcess(doc);
    const facts = this.rootFacts(true)!;
    this.pump(true);
    const root = this.root!;
    facts.counters = root.countersKind === TAG_ARRAY ? root.countersCount : 0;
    if (facts.shape === "raw") this.children(root, "", 0, facts);
    for (const h of this.held.splice(0)) h.parts.dispose();
    return facts;
  }

  private children(
    process: ProcessParts,
    path: string,
    offsetMs: number,
    facts: ProfileFacts,
  ): void {
    const children = [...process.children].sort((a, b) => a.index - b.index);
    for (const child of children) {
      const where = `${path}processes[${child.index}]`;
      if (child.kind !== TAG_OBJECT || child.meta === null || child.meta.kind !== TAG_OBJECT)
        throw expectationFailed(
          GECKO_FORMAT,
          `${where}.meta`,
          "an object",
          sampleOfKind(child.kind !== TAG_OBJECT ? child.kind : (child.meta?.kind ?? TAG_ABSENT)),
        );
      const childStart = num(child.meta.startTime) ? child.meta.startTime : null;
      const parentStart =
        process.meta !== null && num(process.meta.startTime) ? process.meta.startTime : null;
      const offset =
        offsetMs + (childStart !== null && parentStart !== null ? childStart - parentStart : 0);
      const threads = this.held
        .filter((h) => h.process === child)
        .sort((a, b) => a.index - b.index);
      this.held.splice(0, this.held.length, ...this.held.filter((h) => h.process !== child));
      for (const h of threads) this.read(h, `${where}.`, offset, facts);
      this.children(child, `${where}.`, offset, facts);
    }
  }

  /** Releases whatever is still held (after a failure). */
  dispose(): void {
    for (const h of [...this.queue.splice(0), ...this.held.splice(0)]) h.parts.dispose();
  }
}
