/**
 * The worker's resident size, read cheaply enough to ask for it thousands of times a second.
 *
 * `process.memoryUsage.rss()` costs ~10 µs in a small process and ~25 µs in a busy worker (Bun opens
 * and reads procfs each time). The memory governor asks at every row batch near its ceiling: on a
 * 100 MB Perfetto trace that was ~260 ms of the parser thread. On Linux, `/proc/self/statm` is kept
 * open and re-read from offset 0 (one pread, ~2.5 µs): its second field is the resident page count.
 * Elsewhere, or if procfs cannot be read, `process.memoryUsage.rss()` answers.
 */
import { closeSync, openSync, readSync } from "node:fs";

const SPACE = 0x20;
const DIGIT_0 = 0x30;

export class ResidentBytes {
  private fd = -1;
  private pageBytes = 0;
  private readonly text = new Uint8Array(128);

  constructor(statmPath = "/proc/self/statm") {
    try {
      this.fd = openSync(statmPath, "r");
      const pages = this.statmPages();
      // statm counts pages; their size is found once against the runtime's own figure, as the
      // power of two nearest their ratio (4 KiB on x86-64, up to 64 KiB on some arm64 kernels).
      if (pages > 0) this.pageBytes = 2 ** Math.round(Math.log2(process.memoryUsage.rss() / pages));
      if (!(this.pageBytes >= 4096 && this.pageBytes <= 65536)) this.close();
    } catch {
      this.close();
    }
  }

  /** Whether reads come from statm (false: from the runtime). */
  get fromStatm(): boolean {
    return this.fd >= 0;
  }

  read(): number {
    if (this.fd >= 0) {
      const pages = this.statmPages();
      if (pages > 0) return pages * this.pageBytes;
    }
    return process.memoryUsage.rss();
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  /** The resident page count: statm's second field; -1 when the text is not statm's. */
  private statmPages(): number {
    const text = this.text;
    let n: number;
    try {
      n = readSync(this.fd, text, 0, text.length, 0);
    } catch {
      return -1;
    }
    let i = 0;
    while (i < n && text[i] !== SPACE) i++;
    i++;
    let pages = 0;
    let digits = 0;
    for (; i < n && text[i] !== SPACE; i++, digits++) {
      const d = text[i]! - DIGIT_0;
      if (d < 0 || d > 9) return -1;
      pages = pages * 10 + d;
    }
    return digits > 0 ? pages : -1;
  }
}
