/**
 * What a pytest `longrepr` says about a failure, in a few bounded fields. pytest-reportlog
 * serialises it in one of three shapes (pytest's `_report_to_json`): null; a
 * `[path, lineno, reason]` triple for skips; a string (collection errors, `--tb=native`
 * and plugin reprs); or a dict with `reprcrash` (where it failed and the crash message)
 * and `reprtraceback` (entries whose last `reprfileloc.message` is the exception type).
 */
import { isPlainObject } from "../json-guard.ts";

export interface FailureSummary {
  message: string | null;
  exceptionType: string | null;
  crashFile: string | null;
  /** 1-based, as pytest reports crash lines. */
  crashLine: number | null;
}

const NONE: FailureSummary = {
  message: null,
  exceptionType: null,
  crashFile: null,
  crashLine: null,
};
/** `E   ValueError: …` lines of a textual traceback, and `Name: message` crash messages. */
const E_LINE =
  /^E\s+([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failed|Skipped|Fault))\b/m;
const TYPE_PREFIX = /^([A-Za-z_][\w.]*):\s/;

export function summarizeLongrepr(longrepr: unknown): FailureSummary {
  if (longrepr === null || longrepr === undefined) return NONE;
  if (typeof longrepr === "string") {
    const exception = E_LINE.exec(longrepr)?.[1] ?? null;
    return { ...NONE, message: longrepr, exceptionType: exception };
  }
  if (Array.isArray(longrepr)) {
    const [path, lineno, reason] = longrepr;
    return {
      message: typeof reason === "string" ? reason : null,
      exceptionType: typeof reason === "string" ? (TYPE_PREFIX.exec(reason)?.[1] ?? null) : null,
      crashFile: typeof path === "string" ? path : null,
      crashLine: typeof lineno === "number" && Number.isInteger(lineno) ? lineno : null,
    };
  }
  if (!isPlainObject(longrepr)) return NONE;
  const crash = isPlainObject(longrepr.reprcrash) ? longrepr.reprcrash : null;
  const message = typeof crash?.message === "string" ? crash.message : null;
  return {
    message,
    exceptionType:
      lastEntryException(longrepr.reprtraceback) ??
      (message ? (TYPE_PREFIX.exec(message)?.[1] ?? null) : null),
    crashFile: typeof crash?.path === "string" ? crash.path : null,
    crashLine:
      typeof crash?.lineno === "number" && Number.isInteger(crash.lineno) ? crash.lineno : null,
  };
}

function lastEntryException(traceback: unknown): string | null {
  if (!isPlainObject(traceback) || !Array.isArray(traceback.reprentries)) return null;
  const last = traceback.reprentries.at(-1);
  if (!isPlainObject(last) || !isPlainObject(last.data)) return null;
  const loc = last.data.reprfileloc;
  if (
    isPlainObject(loc) &&
    typeof loc.message === "string" &&
    /^[A-Za-z_][\w.]*$/.test(loc.message)
  )
    return loc.message;
  // Native-style entries carry the traceback as text lines only.
  const lines = Array.isArray(last.data.lines)
    ? last.data.lines.filter((l): l is string => typeof l === "string").join("\n")
    : "";
  return E_LINE.exec(lines)?.[1] ?? null;
}
