/**
 * CLI output: `--json` prints the result model itself (the same model MCP wraps in its
 * envelope); text mode renders a readable summary. Errors carry code, message and
 * remediation, and the exit code derives from the error code. Strings that come from
 * artifacts are untrusted: control characters are stripped before they reach a terminal.
 */
import { writeSync } from "node:fs";
import { asFlameoxError } from "../domain/errors.ts";

export interface OutputOptions {
  json: boolean;
}

export const useColor = (): boolean => !process.env.NO_COLOR && process.stdout.isTTY === true;

/** Removes terminal control sequences and other C0/C1 controls from untrusted text. */
export function safeText(value: unknown): string {
  return String(value ?? "")
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
}

/**
 * Results are written synchronously, to the end, before anything else happens: with
 * process.stdout.write followed by process.exit a result was cut off at 128 KiB on a pipe,
 * and Bun.write(Bun.stdout) answers a short write on a non-blocking pipe (EAGAIN) by
 * writing the whole text again from its start, so a reader got the first 64 KiB twice.
 * Here a short write continues where it stopped; a reader that went away (EPIPE) ends
 * the output quietly.
 */
const STDOUT = 1;
const encoder = new TextEncoder();

function writeStdout(text: string): void {
  const bytes = encoder.encode(text);
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(STDOUT, bytes, done, bytes.length - done);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") Bun.sleepSync(1);
      else if (code === "EPIPE") return;
      else throw error;
    }
  }
}

export function printResult(
  result: unknown,
  options: OutputOptions,
  renderText: (r: never) => string,
): void {
  if (options.json) {
    writeStdout(JSON.stringify(result, bigintSafe, 2) + "\n");
  } else {
    writeStdout(renderText(result as never) + "\n");
  }
}

export function printError(error: unknown, options: OutputOptions): number {
  const failure = asFlameoxError(error);
  const payload = failure.toPayload();
  if (options.json) {
    writeStdout(JSON.stringify({ error: payload }, bigintSafe, 2) + "\n");
  } else {
    const lines = [`error[${payload.code}]: ${safeText(payload.message)}`];
    if (payload.run_id) lines.push(`  run: ${payload.run_id}`);
    for (const step of payload.remediation) lines.push(`  hint: ${safeText(step)}`);
    process.stderr.write(lines.join("\n") + "\n");
  }
  return failure.exitCode;
}

function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** Formats nanoseconds for people: 1.23 s, 45.6 ms, 789 µs. */
export function formatNs(ns: number): string {
  const abs = Math.abs(ns);
  if (abs >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (abs >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (abs >= 1e3) return `${(ns / 1e3).toFixed(1)} µs`;
  return `${ns} ns`;
}

export function table(rows: string[][]): string {
  if (rows.length === 0) return "";
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  "),
    )
    .join("\n");
}

/** Formats a byte count for people: 512 B, 1.5 KiB, 12.3 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** ANSI styling, only on a terminal and never with NO_COLOR set. */
const style =
  (code: string) =>
  (text: string): string =>
    useColor() ? `\u001b[${code}m${text}\u001b[0m` : text;
export const bold = style("1");
export const dim = style("2");
export const red = style("31");
export const green = style("32");
export const yellow = style("33");
