/**
 * Corpus access for adapter tests: files are read in place (never copied) and gunzipped here.
 *
 * Two lanes. The default lane reads only fixtures/corpus/ (the permissively licensed, small
 * files vendored with their manifest), so a fresh clone tests itself. The external lane adds
 * the rest of the real-artifact corpus (copyleft or unclear licenses, large files) from the
 * folder named by FLAMEOX_CORPUS; `make test-external` sets it to ../shared/corpus. Which
 * files a lane left out, and why, is reported by tests/adapters/corpus-lanes.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CORPUS } from "../helpers.ts";

export interface CorpusFile {
  name: string;
  path: string;
  lane: "vendored" | "external";
}

/** The external corpus folder when this run is the external lane, else null. */
export const EXTERNAL_CORPUS: string | null = process.env.FLAMEOX_CORPUS
  ? resolve(process.env.FLAMEOX_CORPUS)
  : null;

function listDir(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** The files of one format: the vendored ones, plus the external ones in the external lane. */
export function corpusFiles(format: string): CorpusFile[] {
  const vendored = listDir(join(CORPUS, format)).map((name) => ({
    name,
    path: join(CORPUS, format, name),
    lane: "vendored" as const,
  }));
  if (EXTERNAL_CORPUS === null) return vendored;
  const have = new Set(vendored.map((f) => f.name));
  const external = listDir(join(EXTERNAL_CORPUS, format))
    .filter((name) => !have.has(name))
    .map((name) => ({
      name,
      path: join(EXTERNAL_CORPUS, format, name),
      lane: "external" as const,
    }));
  return [...vendored, ...external].sort((a, b) => a.name.localeCompare(b.name));
}

/** One named file, or a clear error that says which lane has it. */
export function corpusFile(format: string, name: string): CorpusFile {
  const file = corpusFiles(format).find((f) => f.name === name);
  if (file === undefined)
    throw new Error(
      `corpus file ${format}/${name} is not in this lane (vendored: ${CORPUS}; ` +
        `external: ${EXTERNAL_CORPUS ?? "FLAMEOX_CORPUS unset"})`,
    );
  return file;
}

export function corpusFormats(): string[] {
  const dirs = (root: string | null) =>
    root === null || !existsSync(root)
      ? []
      : readdirSync(root, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => e.name);
  return [...new Set([...dirs(CORPUS), ...dirs(EXTERNAL_CORPUS)])].sort();
}

/** The decompressed payload, as the importer hands it to adapters. */
export function loadPayload(path: string): Uint8Array {
  const bytes = new Uint8Array(readFileSync(path));
  return path.endsWith(".gz") ? Bun.gunzipSync(bytes) : bytes;
}

export function headOf(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes.subarray(0, 64 * 1024));
}

export function parseLoose(bytes: Uint8Array): unknown {
  return JSON.parse(new TextDecoder().decode(bytes));
}
