/**
 * Failure messages made comparable across tests and runs: the parts that differ between
 * two occurrences of the same defect (memory addresses, file paths, numbers, ids) are
 * replaced by placeholders, so "bad value 7 at 0x7f3a" and "bad value 8 at 0x55e1" fall
 * in one cluster. Only the first line counts: later lines are usually assertion
 * introspection that repeats the values.
 */
const MAX_PATTERN_CHARS = 300;

const RULES: [RegExp, string][] = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<uuid>"],
  [/\b0x[0-9a-f]+\b/gi, "<addr>"],
  // Absolute POSIX paths and Windows drive paths (with at least one separator inside).
  [/(?:[A-Za-z]:\\|(?<![\w.])\/)(?:[^\s/\\:'"(),]+[/\\])+[^\s/\\:'"(),]*/g, "<path>"],
  [/\b(?=[0-9a-f]*[a-f])[0-9a-f]{16,}\b/gi, "<hex>"],
  [/[-+]?\b\d+(?:\.\d+)?(?:e[-+]?\d+)?\b/gi, "<n>"],
];

export function normalizeFailureMessage(message: string | null): string {
  if (message === null) return "";
  const first = message.split("\n", 1)[0]!.trim();
  let out = first;
  for (const [pattern, placeholder] of RULES) out = out.replace(pattern, placeholder);
  return out.length > MAX_PATTERN_CHARS ? out.slice(0, MAX_PATTERN_CHARS) : out;
}
