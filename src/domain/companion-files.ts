/**
 * Files an artifact declares beside itself, such as the per-sample sidecars an NVBench JSON
 * names. An adapter only reads the bytes it is handed, so it reports what it found declared;
 * the import then reads each file only if it passes the import fence, and extracts it as an
 * artifact of the same run with the adapter and context the declaration names. Declarations
 * come from untrusted bytes: they cross the parse-worker protocol checked and bounded.
 */
export type ContextValue = string | number | boolean | null;

export interface CompanionFile {
  /** The name as the artifact writes it: relative to the artifact's directory, or absolute. */
  filename: string;
  /** Bytes the artifact says the file holds. */
  byte_length: number;
  /**
   * The adapter that reads the file, and what it needs to know that the file itself does not say.
   */
  adapter: string;
  context: Record<string, ContextValue | Record<string, ContextValue>>;
}

export const MAX_COMPANIONS = 1000;
const MAX_CONTEXT_CHARS = 16 * 1024;
const MAX_FILENAME_CHARS = 4096;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) =>
  v === null ||
  typeof v === "string" ||
  typeof v === "boolean" ||
  (typeof v === "number" && Number.isFinite(v));

/** What is wrong with one declaration, or null. */
export function companionProblem(value: unknown, at: string): string | null {
  if (!isRecord(value)) return `${at} must be an object`;
  if (
    typeof value.filename !== "string" ||
    value.filename.length === 0 ||
    value.filename.length > MAX_FILENAME_CHARS
  )
    return `${at}.filename must be a string of 1 to ${MAX_FILENAME_CHARS} characters`;
  if (
    typeof value.byte_length !== "number" ||
    !Number.isSafeInteger(value.byte_length) ||
    value.byte_length < 0
  )
    return `${at}.byte_length must be an integer >= 0`;
  if (typeof value.adapter !== "string" || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(value.adapter))
    return `${at}.adapter must be an adapter name`;
  if (!isRecord(value.context)) return `${at}.context must be an object`;
  for (const v of Object.values(value.context))
    if (!isScalar(v) && !(isRecord(v) && Object.values(v).every(isScalar)))
      return `${at}.context values must be scalars or objects of scalars`;
  if (JSON.stringify(value.context).length > MAX_CONTEXT_CHARS)
    return `${at}.context exceeds ${MAX_CONTEXT_CHARS} characters`;
  return null;
}

/** What is wrong with a list of declarations, or null. */
export function companionsProblem(value: unknown, at: string): string | null {
  if (!Array.isArray(value)) return `${at} must be an array`;
  if (value.length > MAX_COMPANIONS) return `${at} must hold at most ${MAX_COMPANIONS} files`;
  for (const [i, c] of value.entries()) {
    const problem = companionProblem(c, `${at}[${i}]`);
    if (problem !== null) return problem;
  }
  return null;
}
