/**
 * Formats flameox recognises by name but does not import yet, so that "cannot recognise
 * the format" can say what exists: the importable adapters (registry.ts) and these. Kept
 * apart from the registry so the error path loads no adapter code.
 */
export const KNOWN_NOT_IMPORTED: readonly { name: string; producer: string }[] = [
  { name: "junit-xml", producer: "JUnit XML test reports" },
];

/** The sentence appended to ARTIFACT_FORMAT_UNKNOWN and to an unknown adapter name. */
export function formatsSentence(importable: readonly string[]): string {
  // A format that gained an adapter is importable, whatever this list still says.
  const pending = KNOWN_NOT_IMPORTED.filter((f) => !importable.includes(f.name)).map((f) => f.name);
  return (
    `Importable formats (adapters): ${importable.join(", ")}.` +
    `${pending.length > 0 ? ` Known but not imported yet: ${pending.join(", ")}.` : ""}`
  );
}
