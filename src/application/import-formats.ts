/** The formats `flameox import` reads, from the adapter registry, for help and error texts. */
export interface ImportFormat {
  name: string;
  artifactKind: string;
}

export async function importFormats(): Promise<ImportFormat[]> {
  // Loaded on demand, and only the formats' descriptions, not their parsers.
  const { ADAPTER_ENTRIES } = await import("../adapters/adapter-entries.ts");
  return ADAPTER_ENTRIES.map((a) => ({ name: a.name, artifactKind: a.artifactKind }));
}
