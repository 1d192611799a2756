/**
 * `cuda_gpu_trace` rows as trace events, the way the SQLite export's kernels and memory
 * operations are: one track per GPU device, context and stream (the report has no process
 * id, so a track is `gpu<device>:ctx<ctx>.stream<strm>`), a kernel's launch configuration
 * and CUPTI correlation id in its args. Start and duration are converted from the header's
 * unit to nanoseconds. Rows that are not device activity cannot occur in this report; a row
 * with no start or duration is a parse failure naming its line.
 */
import { parseFailed, tooLarge } from "../json-guard.ts";
import { NsysEvents } from "../nsys-sqlite/device-event-columns.ts";
import type { NsysTrack } from "../nsys-sqlite/read-events.ts";
import { NS_PER, type TraceHeader } from "./report-header.ts";

const MAX_ARG_CHARS = 256;

export interface GpuTraceRead {
  events: NsysEvents;
  tracks: Map<string, NsysTrack>;
  counts: Record<string, number>;
  devices: Set<string>;
}

/**
 * "NVIDIA A100-SXM4-80GB (0)" → { id: "0", name: "NVIDIA A100-SXM4-80GB" }; a bare "0" → { id: "0",
 * name: null }.
 */
function device(text: string): { id: string; name: string | null } {
  const match = /^(.*?)\s*\((\d+)\)\s*$/.exec(text);
  if (match) return { id: match[2]!, name: match[1]! === "" ? null : match[1]! };
  return /^\d+$/.test(text)
    ? { id: text, name: null }
    : { id: text === "" ? "unknown" : text, name: text === "" ? null : text };
}

/** A plain number, or one written with thousands separators. */
export function number(cell: string | undefined): number | null {
  if (cell === undefined) return null;
  const text = /^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(cell.trim())
    ? cell.replace(/,/g, "")
    : cell.trim();
  if (text === "") return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

export class GpuTraceReader {
  readonly read: GpuTraceRead = {
    events: new NsysEvents(),
    tracks: new Map(),
    counts: {},
    devices: new Set(),
  };
  private readonly cell: (cells: string[], name: string) => string | undefined;

  constructor(
    private readonly header: TraceHeader,
    private readonly label: string,
    private readonly maxEvents: number,
  ) {
    this.cell = (cells, name) => {
      const at = header.columns.get(name);
      return at === undefined ? undefined : cells[at];
    };
  }

  accept(cells: string[], line: number): void {
    const { header, cell } = this;
    const start = number(cell(cells, "start"));
    const duration = number(cell(cells, "duration"));
    if (start === null || duration === null)
      throw parseFailed(
        this.label,
        `line ${line}: expected a start and a duration but ` +
          `found ${JSON.stringify(cell(cells, "start"))}, ` +
          `${JSON.stringify(cell(cells, "duration"))}`,
      );
    if (duration < 0) throw parseFailed(this.label, `line ${line}: negative duration ${duration}`);
    if (this.read.events.length >= this.maxEvents)
      throw tooLarge(this.label, "trace events", this.read.events.length + 1, this.maxEvents);
    const name = cell(cells, "name") ?? "";
    const size = header.sizeColumn === null ? null : number(cell(cells, header.sizeColumn));
    const category = name.startsWith("[CUDA memcpy")
      ? "cuda_memcpy"
      : name.startsWith("[CUDA memset")
        ? "cuda_memset"
        : "cuda_kernel";
    const dev = device(cell(cells, "device") ?? "");
    const ctx = cell(cells, "ctx") ?? "";
    const green = cell(cells, "greenctx") ?? "";
    const strm = cell(cells, "strm") ?? "";
    const tid = `ctx${ctx}${green === "" ? "" : `.green${green}`}.stream${strm}`;
    const track = `gpu${dev.id}:${tid}`;
    if (!this.read.tracks.has(track)) {
      this.read.tracks.set(track, {
        pid: `gpu${dev.id}`,
        tid,
        processName: `GPU ${dev.id}${dev.name === null ? "" : `: ${dev.name}`}`,
        threadName: `stream ${strm} (context ${ctx})`,
      });
    }
    this.read.devices.add(dev.id);
    const corr = number(cell(cells, "corrid"));
    const args: Record<string, unknown> = { correlation_id: corr };
    if (category === "cuda_kernel") {
      args.grid = ["grdx", "grdy", "grdz"].map((c) => number(cell(cells, c)));
      args.block = ["blkx", "blky", "blkz"].map((c) => number(cell(cells, c)));
      args.registers_per_thread = number(cell(cells, "reg/trd"));
      args.demangled = name.length > MAX_ARG_CHARS ? name.slice(0, MAX_ARG_CHARS) : name;
    } else {
      // The report writes sizes in the header's unit (B, KB, MB); kept as written rather than
      // guessed into bytes.
      args.size = size;
      args.size_unit = header.sizeUnit;
      args.src_kind = cell(cells, "srcmemkd") ?? null;
      args.dst_kind = cell(cells, "dstmemkd") ?? null;
    }
    const startNs = Math.round(start * NS_PER[header.startUnit]);
    const end = startNs + Math.round(duration * NS_PER[header.durationUnit]);
    this.read.events.push({
      track,
      category,
      name,
      start: startNs,
      end,
      args: JSON.stringify(args),
    });
    this.read.counts[category] = (this.read.counts[category] ?? 0) + 1;
  }
}
