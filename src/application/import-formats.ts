/** The formats `flameox import` reads, from the adapter registry, for help and error texts. */
export interface ImportFormat {
  name: string;
  artifactKind: string;
}

export async function importFormats(): Promise<ImportFormat[]> {
  // Loaded on demand: the registry pulls in every adapter, which `--help` alone should not pay for
  // elsewhere.
  const { ADAPTERS } = await import("../adapters/registry.ts");
  return ADAPTERS.map((a) => ({ name: a.name, artifactKind: a.artifactKind }));
}
