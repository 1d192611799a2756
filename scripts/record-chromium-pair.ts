/**
 * Records one page load in Chromium as a JSON trace and a Perfetto (protobuf) trace at once:
 * the same run seen by two tracing sessions, so the two files hold the same V8 CPU profiler
 * samples, not two runs' worth of different ones.
 *
 * Chromium refuses a second DevTools `Tracing.start` while one runs ("Tracing has already
 * been started (possibly in another tab)"), but its startup tracing (`--trace-startup`) is a
 * separate Perfetto session that runs beside a DevTools one. So the browser starts with
 * startup tracing to a protobuf file, a DevTools session over `--remote-debugging-pipe`
 * records the page load in JSON, and closing the browser ends the startup session (with
 * `--trace-startup-duration=0` it runs until then). The V8 profiler of a renderer is one
 * per isolate: the Profile/ProfileChunk events it writes go to both sessions. The startup
 * session runs from launch to close, longer than the DevTools one, so samples outside the
 * DevTools window (mostly Chromium's own UI renderer, idle time) are in the protobuf
 * file only; the page's JavaScript runs inside both windows.
 *
 *   bun scripts/record-chromium-pair.ts OUT_DIR [PAGE.html]
 *
 * writes OUT_DIR/trace.json and OUT_DIR/trace.pftrace (PAGE defaults to
 * fixtures/chromium/fib-page.html, which sets its title to "done …" when its work is over).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * The V8 profiler's events and the page's performance.mark/measure; nothing else, to keep the files
 * small.
 */
export const DEFAULT_CATEGORIES = [
  "-*",
  "disabled-by-default-v8.cpu_profiler",
  "blink.user_timing",
  "v8.execute",
];

export interface RecordOptions {
  chromium: string;
  page: string;
  outDir: string;
  categories?: string[];
  /** The page is done when document.title starts with this. */
  doneTitle?: string;
  timeoutMs?: number;
}

export interface RecordedPair {
  json: string;
  proto: string;
  /** What Chromium said when the page was done (its document.title). */
  title: string;
}

/** The installed Chromium, if any (Debian names it chromium). */
export function findChromium(): string | undefined {
  return ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
}

/** A DevTools protocol message: a reply ({id, result | error}) or an event ({method, params}). */
interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/**
 * A DevTools protocol connection over Chromium's pipe (fd 3 in, fd 4 out, messages ended by NUL).
 */
class PipeConnection {
  private nextId = 1;
  private readonly pending = new Map<number, (m: CdpMessage) => void>();
  private readonly events: ((m: CdpMessage) => void)[] = [];
  private buffered = "";

  constructor(private readonly child: ChildProcess) {
    const incoming = child.stdio[4] as NodeJS.ReadableStream;
    incoming.setEncoding("utf8");
    incoming.on("data", (text: string) => {
      this.buffered += text;
      for (let end = this.buffered.indexOf("\0"); end >= 0; end = this.buffered.indexOf("\0")) {
        const message = JSON.parse(this.buffered.slice(0, end)) as CdpMessage;
        this.buffered = this.buffered.slice(end + 1);
        const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
        if (waiting) {
          this.pending.delete(message.id!);
          waiting(message);
        } else for (const listener of [...this.events]) listener(message);
      }
    });
  }

  /** Sends a command; rejects with Chromium's own error message when it refuses. */
  async send<Result = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Result> {
    const id = this.nextId++;
    const reply = new Promise<CdpMessage>((resolve) => this.pending.set(id, resolve));
    (this.child.stdio[3] as NodeJS.WritableStream).write(
      `${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`,
    );
    const message = await reply;
    if (message.error) throw new Error(`${method}: ${message.error.message}`);
    return (message.result ?? {}) as Result;
  }

  next<Params>(method: string): Promise<Params> {
    return new Promise((resolve) => {
      const listener = (m: CdpMessage) => {
        if (m.method !== method) return;
        this.events.splice(this.events.indexOf(listener), 1);
        resolve(m.params as Params);
      };
      this.events.push(listener);
    });
  }

  async readStream(handle: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (;;) {
      const r = await this.send<{ data: string; base64Encoded?: boolean; eof: boolean }>(
        "IO.read",
        { handle, size: 1 << 20 },
      );
      parts.push(Buffer.from(r.data, r.base64Encoded ? "base64" : "utf8"));
      if (r.eof) break;
    }
    await this.send("IO.close", { handle });
    return Buffer.concat(parts);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Chromium: ${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function recordChromiumPair(options: RecordOptions): Promise<RecordedPair> {
  const categories = options.categories ?? DEFAULT_CATEGORIES;
  const timeoutMs = options.timeoutMs ?? 60_000;
  mkdirSync(options.outDir, { recursive: true });
  const json = join(options.outDir, "trace.json");
  const proto = join(options.outDir, "trace.pftrace");
  rmSync(proto, { force: true });
  const profileDir = mkdtempSync(join(tmpdir(), "flameox-chromium-profile-"));
  const child = spawn(
    options.chromium,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      `--user-data-dir=${profileDir}`,
      "--remote-debugging-pipe",
      `--trace-startup=${categories.join(",")}`,
      "--trace-startup-format=proto",
      `--trace-startup-file=${proto}`,
      "--trace-startup-duration=0",
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr
    ?.setEncoding("utf8")
    .on("data", (t: string) => void (stderr = (stderr + t).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const failed = new Promise<never>((_, reject) => {
    child.on("error", reject);
    void exited.then((code) =>
      reject(new Error(`Chromium exited (${code}) before the recording was written:\n${stderr}`)),
    );
  });
  const cdp = new PipeConnection(child);
  try {
    const steps = (async (): Promise<string> => {
      const { targetInfos } = await cdp.send<{ targetInfos: { type: string; targetId: string }[] }>(
        "Target.getTargets",
      );
      const page = targetInfos.find((t) => t.type === "page");
      if (!page) throw new Error("Chromium has no page target");
      const { sessionId } = await cdp.send<{ sessionId: string }>("Target.attachToTarget", {
        targetId: page.targetId,
        flatten: true,
      });
      const included = categories.filter((c) => !c.startsWith("-"));
      const excluded = categories.filter((c) => c.startsWith("-")).map((c) => c.slice(1));
      await cdp.send("Tracing.start", {
        traceConfig: {
          recordMode: "recordUntilFull",
          includedCategories: included,
          excludedCategories: excluded,
        },
        transferMode: "ReturnAsStream",
        streamFormat: "json",
      });
      await cdp.send(
        "Page.navigate",
        { url: pathToFileURL(resolve(options.page)).href },
        sessionId,
      );
      let title = "";
      for (;;) {
        const evaluated = await cdp.send<{ result?: { value?: unknown } }>(
          "Runtime.evaluate",
          { expression: "document.title" },
          sessionId,
        );
        title = String(evaluated.result?.value ?? "");
        if (title.startsWith(options.doneTitle ?? "done")) break;
        await Bun.sleep(50);
      }
      // Let the profiler's last chunk of the page's work reach both sessions.
      await Bun.sleep(300);
      const complete = cdp.next<{ stream: string }>("Tracing.tracingComplete");
      await cdp.send("Tracing.end");
      const { stream } = await complete;
      writeFileSync(json, await cdp.readStream(stream));
      await cdp.send("Browser.close");
      return title;
    })();
    const title = await withTimeout(Promise.race([steps, failed]), timeoutMs, "recording the page");
    await withTimeout(exited, timeoutMs, "closing");
    if (!existsSync(proto))
      throw new Error(`Chromium closed without writing the startup trace ${proto}:\n${stderr}`);
    return { json, proto, title };
  } finally {
    failed.catch(() => undefined);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(profileDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const [outDir, page = join(import.meta.dir, "..", "fixtures", "chromium", "fib-page.html")] =
    process.argv.slice(2);
  const chromium = process.env.CHROMIUM ?? findChromium();
  if (!outDir || !chromium) {
    console.error(
      outDir
        ? "no Chromium found (set CHROMIUM)"
        : "usage: bun scripts/record-chromium-pair.ts OUT_DIR [PAGE.html]",
    );
    process.exit(2);
  }
  const pair = await recordChromiumPair({ chromium, page, outDir });
  console.log(`${pair.json}\n${pair.proto}\n(page title: ${pair.title})`);
  process.exit(0);
}
