/**
 * A one-line progress bar on a terminal: phase, bar, percent, rate and time left, redrawn
 * in place at most ten times a second. Only for a terminal: on a pipe or a file the
 * caller passes no progress callback at all, so nothing is written there.
 */
import { formatBytes } from "./output.ts";

export interface ProgressBar {
  update(phase: string, done: number, total: number): void;
  finish(): void;
}

const formatSeconds = (s: number): string =>
  s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(Math.floor(s % 60)).padStart(2, "0")}s`
      : `${Math.ceil(s)}s`;

export function progressBar(stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  let phase = "";
  let phaseStart = 0;
  let lastDraw = 0;
  let drawn = false;
  const clear = () => {
    if (drawn) stream.write("\r\u001b[2K");
    drawn = false;
  };
  return {
    update(nextPhase, done, total) {
      const now = performance.now();
      if (nextPhase !== phase) {
        phase = nextPhase;
        phaseStart = now;
      } else if (now - lastDraw < 100 && done < total) {
        return;
      }
      if (phase === "completed") return clear();
      lastDraw = now;
      if (total <= 1 && done === 0) {
        // Started, size not known yet.
        stream.write(`\r\u001b[2K${phase} …`);
        drawn = true;
        return;
      }
      const fraction = total > 0 ? Math.min(1, done / total) : 0;
      const elapsed = (now - phaseStart) / 1000;
      const rate = elapsed > 0.2 && done > 0 ? done / elapsed : 0;
      const tail = [
        `${String(Math.floor(fraction * 100)).padStart(3)}%`,
        `${formatBytes(done)}/${formatBytes(total)}`,
      ];
      // Everything read is not everything done: the last evidence is still being written.
      if (done >= total) tail.push(`read in ${formatSeconds(elapsed)}, writing evidence…`);
      else if (rate > 0)
        tail.push(`${formatBytes(rate)}/s`, `ETA ${formatSeconds((total - done) / rate)}`);
      const text = tail.join("  ");
      const width = Math.max(
        10,
        Math.min(40, (stream.columns ?? 80) - phase.length - text.length - 6),
      );
      const full = Math.round(fraction * width);
      stream.write(`\r\u001b[2K${phase} [${"#".repeat(full)}${"-".repeat(width - full)}] ${text}`);
      drawn = true;
    },
    finish: clear,
  };
}
