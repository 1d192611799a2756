/**
 * Valgrind massif's text output (`massif.out.PID`), line by line: header lines (`desc:`,
 * `cmd:`, `time_unit:`), then snapshots (`snapshot=N`, `time=`, `mem_heap_B=`,
 * `mem_heap_extra_B=`, `mem_stacks_B=`, `heap_tree=empty|detailed|peak`) and, for detailed
 * and peak snapshots, the allocation tree: `n<children>: <bytes> <location>` indented one
 * space per level, rooted at the allocation functions, each child a caller of its parent.
 * Only one tree is kept: the snapshot marked `peak`, or when none is, the detailed one
 * with the most heap bytes (massif marks a peak whenever it takes detailed snapshots).
 */
import { parseFailed, tooLarge } from "../json-guard.ts";

export const MASSIF_FORMAT = "massif output";

export interface MassifNode {
  depth: number;
  bytes: number;
  location: string;
}

export interface MassifSnapshot {
  index: number;
  time: number;
  heapBytes: number;
  extraBytes: number;
  stacksBytes: number;
  kind: string;
  tree: MassifNode[];
}

const NODE = /^( *)n(\d+): (\d+)(?: ([^]*))?$/;
const FIELD = /^(\w+)=(.*)$/;
const HEADER = /^(desc|cmd|time_unit):\s?(.*)$/;

export class MassifReader {
  cmd: string | null = null;
  timeUnit: string | null = null;
  snapshots = 0;
  private current: MassifSnapshot | null = null;
  /** The tree being read belongs to `current`. */
  private chosen: MassifSnapshot | null = null;
  private peakSeen = false;
  private treeLines = 0;
  private sawHeader = false;

  constructor(private readonly maxNodes: number) {}

  readonly onLine = (line: string, lineNumber: number): void => {
    if (line.startsWith("#") || line.trim() === "") return;
    const node = NODE.exec(line);
    if (node) {
      const snapshot = this.current;
      if (snapshot === null || snapshot.kind === "empty")
        throw parseFailed(
          MASSIF_FORMAT,
          `line ${lineNumber}: a tree node outside a detailed snapshot`,
        );
      if (++this.treeLines > this.maxNodes)
        throw tooLarge(MASSIF_FORMAT, "tree nodes", this.treeLines, this.maxNodes);
      const depth = node[1]!.length;
      // Each node is the root (depth 0, first) or a child of the node open one level up.
      const previous =
        snapshot.tree.length === 0 ? -1 : snapshot.tree[snapshot.tree.length - 1]!.depth;
      if (depth > previous + 1 || (depth === 0) !== (snapshot.tree.length === 0))
        throw parseFailed(
          MASSIF_FORMAT,
          `line ${lineNumber}: a tree node at depth ${depth} after one at depth ${previous}`,
        );
      const bytes = Number(node[3]);
      if (!Number.isSafeInteger(bytes))
        throw parseFailed(MASSIF_FORMAT, `line ${lineNumber}: ${node[3]} bytes is beyond 2^53`);
      snapshot.tree.push({ depth, bytes, location: node[4] ?? "" });
      return;
    }
    const header = HEADER.exec(line);
    if (header && this.current === null) {
      this.sawHeader = true;
      if (header[1] === "cmd") this.cmd = header[2]!.trim();
      if (header[1] === "time_unit") this.timeUnit = header[2]!.trim();
      return;
    }
    const field = FIELD.exec(line);
    if (!field)
      throw parseFailed(
        MASSIF_FORMAT,
        `line ${lineNumber} (${JSON.stringify(line.slice(0, 80))}) is neither a snapshot ` +
          `field nor a tree node`,
      );
    const key = field[1]!;
    const value = field[2]!;
    if (key === "snapshot") {
      this.finishSnapshot();
      this.snapshots++;
      this.current = {
        index: Number(value),
        time: 0,
        heapBytes: 0,
        extraBytes: 0,
        stacksBytes: 0,
        kind: "empty",
        tree: [],
      };
      return;
    }
    if (this.current === null)
      throw parseFailed(MASSIF_FORMAT, `line ${lineNumber}: ${key}= before the first snapshot`);
    const n = Number(value);
    switch (key) {
      case "time":
        this.current.time = n;
        return;
      case "mem_heap_B":
        this.current.heapBytes = n;
        return;
      case "mem_heap_extra_B":
        this.current.extraBytes = n;
        return;
      case "mem_stacks_B":
        this.current.stacksBytes = n;
        return;
      case "heap_tree":
        if (value !== "empty" && value !== "detailed" && value !== "peak")
          throw parseFailed(
            MASSIF_FORMAT,
            `line ${lineNumber}: heap_tree=${value.slice(0, 40)} is not empty, detailed or peak`,
          );
        this.current.kind = value;
        return;
      default:
        // Fields a later massif may add: descriptive only.
        return;
    }
  };

  /**
   * The chosen snapshot (peak, else the largest detailed one), or null when no snapshot has a tree.
   */
  finish(): MassifSnapshot | null {
    this.finishSnapshot();
    if (this.snapshots === 0 && !this.sawHeader)
      throw parseFailed(MASSIF_FORMAT, "no massif header or snapshot found");
    return this.chosen;
  }

  get hadPeak(): boolean {
    return this.peakSeen;
  }

  private finishSnapshot(): void {
    const s = this.current;
    if (s === null || s.kind === "empty") return;
    if (s.kind === "peak") {
      this.peakSeen = true;
      this.chosen = s;
    } else if (!this.peakSeen && (this.chosen === null || s.heapBytes > this.chosen.heapBytes))
      this.chosen = s;
    // Only the chosen tree is kept; the others are dropped as soon as they end.
    if (this.chosen !== s) s.tree = [];
    this.current = null;
  }
}
