/**
 * Opaque pagination cursors. A cursor binds the query name and version, a digest of the
 * filters, the corpus commit it was issued against and the position. Using it against
 * another commit fails with STALE_CURSOR, so a page can never silently mix two corpus
 * states; using it with other filters fails as invalid.
 */
import { digestOf } from "../domain/canonical-digest.ts";
import { FlameoxError } from "../domain/errors.ts";

interface CursorBody {
  v: 1;
  q: string;
  f: string;
  c: string;
  o: number;
}

export interface CursorBinding {
  query: string;
  filters: unknown;
  commitId: string;
  /** What commitId names, for the STALE_CURSOR message (default: the corpus commit). */
  stateName?: string;
}

export function encodeCursor(binding: CursorBinding, offset: number): string {
  const body: CursorBody = {
    v: 1,
    q: binding.query,
    f: digestOf(binding.filters).slice(7, 23),
    c: binding.commitId,
    o: offset,
  };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

/** Returns the offset a cursor points at (0 without a cursor). */
export function decodeCursor(cursor: string | undefined | null, binding: CursorBinding): number {
  if (!cursor) return 0;
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new FlameoxError("INVALID_ARGUMENTS", "Cannot use cursor: it is not a flameox cursor", {
      details: { field: "cursor" },
    });
  }
  if (
    body?.v !== 1 ||
    typeof body.o !== "number" ||
    !Number.isInteger(body.o) ||
    body.o < 0 ||
    typeof body.c !== "string"
  ) {
    throw new FlameoxError("INVALID_ARGUMENTS", "Cannot use cursor: it is malformed", {
      details: { field: "cursor" },
    });
  }
  if (body.q !== binding.query || body.f !== digestOf(binding.filters).slice(7, 23)) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      "Cannot use cursor: it belongs to a different query or different arguments",
      {
        details: { field: "cursor" },
        remediation: ["Repeat the first call without a cursor"],
      },
    );
  }
  if (body.c !== binding.commitId) {
    const state = binding.stateName ?? "corpus commit";
    throw new FlameoxError(
      "STALE_CURSOR",
      `Cannot use cursor: it was issued for ${state} ${body.c}, the current ${state} ` +
        `is ${binding.commitId}`,
      {
        remediation: [
          `Repeat the first call without a cursor to page through the current ${state}`,
        ],
      },
    );
  }
  return body.o;
}
