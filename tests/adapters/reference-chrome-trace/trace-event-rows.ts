/**
 * Reference: writes `trace_events`: one row per kept event, in input order (event_index is the
 * position in the input array). Metadata events and E events (folded into their B) are
 * not rows. One row object is reused for every append: the table copies the values.
 */
import type { TableBuffer } from "../../../src/domain/table-buffer.ts";
import type { CellValue } from "../../../src/domain/table-buffer.ts";
import type { TrackInfo } from "../../../src/adapters/common/track.ts";
import type { ArgsSerializer } from "./args-json.ts";
import { FLAG_ARGS_TRUNCATED, flagsText } from "../../../src/adapters/trace-events/event-flags.ts";
import {
  KIND_BEGIN,
  KIND_COMPLETE,
  KIND_SKIPPED,
  UNNAMED,
} from "../../../src/adapters/trace-events/event-kinds.ts";
import type { ScannedTrace, TraceEventObject } from "./event-scan.ts";
import type { TrackRegistry } from "../../../src/adapters/chrome-trace/tracks.ts";

export function writeTraceEventRows(
  scan: ScannedTrace,
  tracks: TrackRegistry,
  args: ArgsSerializer,
  table: TableBuffer,
): number {
  const { events, kind, track, startNs, durNs, threadNs, depth, flags, clock } = scan;
  const infos: TrackInfo[] = tracks.allInfo();
  let truncatedArgs = 0;
  const row: Record<string, CellValue> = {};
  for (let i = 0; i < events.length; i++) {
    const k = kind[i]!;
    if (k === KIND_SKIPPED) continue;
    const event = events[i] as TraceEventObject;
    const t = track[i]!;
    const info = infos[t]!;
    const argsJson = args.serialize(event.args);
    let mask = flags[i]!;
    if (args.truncated) {
      mask |= FLAG_ARGS_TRUNCATED;
      truncatedArgs++;
    }
    row.event_index = i;
    row.track_id = info.id;
    row.name = typeof event.name === "string" ? event.name : UNNAMED;
    row.category = typeof event.cat === "string" ? event.cat : null;
    row.phase = event.ph as string;
    row.ts_ns = clock.absNs(startNs[i]!);
    row.dur_ns = k === KIND_COMPLETE || k === KIND_BEGIN ? durNs[i]! : null;
    row.depth = depth[i]!;
    row.args_json = argsJson;
    row.flags = flagsText(mask);
    row.thread_dur_ns =
      (k === KIND_COMPLETE || k === KIND_BEGIN) && Number.isFinite(threadNs[i]!)
        ? threadNs[i]!
        : null;
    table.append(row);
  }
  return truncatedArgs;
}
