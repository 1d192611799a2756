/** Corpus access for adapter tests: files are read in place (never copied) and gunzipped here. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS } from "../helpers.ts";

export interface CorpusFile {
  name: string;
  path: string;
}

export function corpusFiles(format: string): CorpusFile[] {
  const dir = join(CORPUS, format);
  return readdirSync(dir)
    .sort()
    .map((name) => ({ name, path: join(dir, name) }));
}

export function corpusFormats(): string[] {
  return readdirSync(CORPUS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
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
