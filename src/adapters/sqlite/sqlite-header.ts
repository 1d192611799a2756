/**
 * The SQLite file magic, apart from the database reader: format detection only looks at a
 * payload's head, and must not load bun:sqlite to do so.
 */
const MAGIC = "SQLite format 3\u0000";

export function isSqliteHeader(head: string | Uint8Array): boolean {
  if (typeof head === "string") return head.startsWith(MAGIC);
  if (head.length < MAGIC.length) return false;
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC.charCodeAt(i)) return false;
  return true;
}
