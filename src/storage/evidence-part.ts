/**
 * Reading one evidence part (a Parquet file listed by a generation manifest) so that an
 * answer is never computed from bytes other than those published. Every reader opens
 * parts through `readVerifiedPart`: the bytes must have the manifest's size and SHA-256
 * before anyone decodes them, and a part that fails is CORPUS_INTEGRITY_FAILED — never
 * an answer, never an internal error.
 *
 * Parts are immutable and named by their generation, so a part verified once need not be
 * rehashed by the same process: the verdict is cached per (path, digest) together with
 * the file's identity (device, inode, size, mtime, ctime). A part replaced or rewritten
 * after it was verified has another identity and is hashed again.
 */
import type { EvidenceTableName } from "../domain/evidence-schema.ts";
import { fstatSync, openSync, readSync, closeSync, type Stats } from "node:fs";
import { FlameoxError } from "../domain/errors.ts";

export interface EvidencePartRef {
  generationId: string;
  /** The table the part stores (set by snapshots; a reader may see it as another, see partFiles). */
  table?: EvidenceTableName;
  /** Absolute path of the part. */
  path: string;
  /** Path relative to `.diagnostics/`, used in messages (never a host path). */
  relativePath: string;
  sha256: string;
  bytes: number;
  rows: number;
}

/** Verified parts of this process: key → file identity when verified. */
const verified = new Map<string, string>();

/** Counters a benchmark or test can read: how many parts were hashed and how many bytes. */
export const partVerificationStats = { hashedParts: 0, hashedBytes: 0, cachedParts: 0 };

/** Forgets every cached verdict (benchmarks measure the cold path with it). */
export function forgetVerifiedParts(): void {
  verified.clear();
}

/** The part's bytes, after checking them against its manifest entry. */
export function readVerifiedPart(part: EvidencePartRef): Uint8Array {
  let fd: number;
  try {
    fd = openSync(part.path, "r");
  } catch (error) {
    throw integrityFailure(
      part,
      `it cannot be opened (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw integrityFailure(part, "it is not a regular file");
    if (stat.size !== part.bytes)
      throw integrityFailure(part, `it has ${stat.size} bytes, its manifest says ${part.bytes}`);
    const bytes = new Uint8Array(stat.size);
    let offset = 0;
    while (offset < bytes.length) {
      const n = readSync(fd, bytes, offset, bytes.length - offset, offset);
      if (n === 0) throw integrityFailure(part, "it was truncated while it was read");
      offset += n;
    }
    const key = `${part.path}\0${part.sha256}`;
    const identity = fileIdentity(stat);
    if (verified.get(key) === identity) {
      partVerificationStats.cachedParts += 1;
      return bytes;
    }
    const digest = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    partVerificationStats.hashedParts += 1;
    partVerificationStats.hashedBytes += bytes.length;
    if (digest !== part.sha256)
      throw integrityFailure(part, "its bytes do not match the SHA-256 in its manifest");
    verified.set(key, identity);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * Decodes a part's verified bytes with `decode`; a decoder failure (corrupt footer or page)
 * or a row count other than the manifest's becomes CORPUS_INTEGRITY_FAILED for that part.
 */
export async function decodeVerifiedPart<T>(
  part: EvidencePartRef,
  bytes: Uint8Array,
  decode: (bytes: Uint8Array) => T | Promise<T>,
  rowsOf: (decoded: T) => number,
): Promise<T> {
  let decoded: T;
  try {
    decoded = await decode(bytes);
  } catch (error) {
    throw integrityFailure(
      part,
      `it cannot be decoded (${(error as Error).message ?? String(error)})`,
    );
  }
  const rows = rowsOf(decoded);
  if (rows !== part.rows)
    throw integrityFailure(part, `it decodes to ${rows} rows, its manifest says ${part.rows}`);
  return decoded;
}

function fileIdentity(stat: Stats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

function integrityFailure(part: EvidencePartRef, why: string): FlameoxError {
  return new FlameoxError(
    "CORPUS_INTEGRITY_FAILED",
    `Cannot read evidence part ${part.relativePath} of generation ${part.generationId}: ${why}`,
    {
      remediation: [
        "Run `flameox validate --full` to list every damaged part",
        "Re-import the artifact to publish a new generation of its evidence",
      ],
      details: { generation_id: part.generationId, part: part.relativePath },
    },
  );
}
