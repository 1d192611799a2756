/**
 * Cuts a simpleperf protobuf file into its records as chunks arrive: the 12-byte header
 * (magic and version), then each record after its little-endian uint32 length, until a
 * zero length. A record is handed over as a view of the chunk when it lies in one, and
 * copied together only when it straddles chunks, so memory holds one record at most.
 */
import { parseFailed, tooLarge } from "../json-guard.ts";
import { SIMPLEPERF_MAGIC } from "./detect.ts";
import { SIMPLEPERF_FORMAT } from "./schema.ts";

const HEADER_BYTES = SIMPLEPERF_MAGIC.length + 2;
const LENGTH_BYTES = 4;
/** No record of a real file comes near this (symbol tables hold only the symbols samples use). */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

export class RecordFramer {
  version: number | null = null;
  records = 0;
  private readonly pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Bytes the next item needs: the header, a length, or a record body. */
  private want = HEADER_BYTES;
  private state: "header" | "length" | "body" | "ended" = "header";
  private offset = 0;

  constructor(private readonly onRecord: (body: Uint8Array) => void) {}

  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.state === "ended")
        throw parseFailed(SIMPLEPERF_FORMAT, `data follows the end record at byte ${this.offset}`);
      if (this.pendingBytes === 0 && chunk.length - at >= this.want) {
        // The whole item is in this chunk: no copy.
        const item = chunk.subarray(at, at + this.want);
        at += this.want;
        this.take(item);
        continue;
      }
      const n = Math.min(this.want - this.pendingBytes, chunk.length - at);
      this.pending.push(chunk.subarray(at, at + n));
      this.pendingBytes += n;
      at += n;
      if (this.pendingBytes === this.want) {
        const item =
          this.pending.length === 1
            ? this.pending[0]!
            : Buffer.concat(this.pending, this.pendingBytes);
        this.pending.length = 0;
        this.pendingBytes = 0;
        this.take(item);
      }
    }
  }

  /** The input ended: it must end between records (the zero length may be missing). */
  finish(): void {
    if (this.state === "header")
      throw parseFailed(SIMPLEPERF_FORMAT, `the file ends inside its ${HEADER_BYTES}-byte header`);
    if (this.state === "body" || this.pendingBytes > 0)
      throw parseFailed(
        SIMPLEPERF_FORMAT,
        `the file is cut off inside record ${this.records + 1} (at ` +
          `byte ${this.offset + this.pendingBytes})`,
      );
  }

  private take(item: Uint8Array): void {
    const start = this.offset;
    this.offset += item.length;
    if (this.state === "header") {
      if (new TextDecoder().decode(item.subarray(0, SIMPLEPERF_MAGIC.length)) !== SIMPLEPERF_MAGIC)
        throw parseFailed(
          SIMPLEPERF_FORMAT,
          `the file does not start with the magic ${SIMPLEPERF_MAGIC}`,
        );
      this.version = item[HEADER_BYTES - 2]! | (item[HEADER_BYTES - 1]! << 8);
      this.state = "length";
      this.want = LENGTH_BYTES;
      return;
    }
    if (this.state === "length") {
      const length = (item[0]! | (item[1]! << 8) | (item[2]! << 16) | (item[3]! << 24)) >>> 0;
      if (length === 0) {
        this.state = "ended";
        this.want = 1;
        return;
      }
      if (length > MAX_RECORD_BYTES)
        throw tooLarge(
          SIMPLEPERF_FORMAT,
          `bytes in record ${this.records + 1} (at byte ${start})`,
          length,
          MAX_RECORD_BYTES,
        );
      this.state = "body";
      this.want = length;
      return;
    }
    this.records++;
    this.state = "length";
    this.want = LENGTH_BYTES;
    this.onRecord(item);
  }
}
