/**
 * Where a child's stdout or stderr goes: kept in memory (decoded as text), streamed to a
 * file created exclusively (for the content-addressed store), or only hashed. Each keeps
 * at most `cap` bytes, counts everything it saw, and hashes what it kept, so a
 * truncated artifact is both identified and flagged.
 */
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";

export type OutputTarget = { kind: "memory" } | { kind: "file"; path: string } | { kind: "digest" };

export interface SinkResult {
  text: string;
  keptBytes: number;
  seenBytes: number;
  truncated: boolean;
  /** sha256 of the kept bytes (of every byte for a digest sink). */
  sha256Hex: string;
  path: string | null;
  /** False when the stream had to be abandoned (a descendant still held it open after cleanup). */
  complete: boolean;
}

export class OutputSink {
  private readonly chunks: Uint8Array[] = [];
  private readonly hasher = new Bun.CryptoHasher("sha256");
  private readonly fd: number | null;
  private kept = 0;
  private seen = 0;
  private complete = false;
  private reader: { cancel(): Promise<void> } | null = null;

  constructor(
    private readonly target: OutputTarget,
    private readonly cap: number,
  ) {
    this.fd = target.kind === "file" ? openSync(target.path, "wx", 0o600) : null;
  }

  /** Reads the stream to its end (or until `abandon`), keeping the first `cap` bytes. */
  async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.reader = reader;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.accept(value);
      }
      this.complete = true;
    } catch {
      // Cancelled by abandon(); `complete` stays false.
    }
  }

  abandon(): void {
    this.reader?.cancel().catch(() => {});
  }

  finish(): SinkResult {
    if (this.fd !== null) {
      fsyncSync(this.fd);
      closeSync(this.fd);
    }
    return {
      text:
        this.target.kind === "memory" ? new TextDecoder().decode(Buffer.concat(this.chunks)) : "",
      keptBytes: this.target.kind === "digest" ? 0 : this.kept,
      seenBytes: this.seen,
      truncated: this.target.kind !== "digest" && this.seen > this.kept,
      sha256Hex: this.hasher.digest("hex"),
      path: this.target.kind === "file" ? this.target.path : null,
      complete: this.complete,
    };
  }

  private accept(chunk: Uint8Array): void {
    this.seen += chunk.length;
    if (this.target.kind === "digest") {
      this.hasher.update(chunk);
      return;
    }
    if (this.kept >= this.cap) return;
    const take = chunk.subarray(0, this.cap - this.kept);
    this.kept += take.length;
    this.hasher.update(take);
    if (this.fd !== null) {
      for (let off = 0; off < take.length; ) off += writeSync(this.fd, take, off);
    } else {
      this.chunks.push(take.slice());
    }
  }
}
