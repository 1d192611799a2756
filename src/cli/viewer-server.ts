/**
 * `flameox open`: serves one exported profile and speedscope's published static build
 * (the `speedscope` npm package) on 127.0.0.1 only, under a random path segment so other
 * local users cannot guess the URL, until asked to stop or a timeout. Only the files of
 * the viewer's release folder and the profile are served; nothing is fetched from the
 * network, and no browser is launched (the URL is printed for the person to open).
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { FlameoxError } from "../domain/errors.ts";

export interface ViewerHandle {
  url: string;
  stopped: Promise<"timeout" | "signal">;
  stop: () => void;
}

/** The viewer's release folder, or an explanation of why it is unavailable here. */
function speedscopeRelease(): string {
  let dir: string | null = null;
  try {
    dir = join(
      dirname(Bun.resolveSync("speedscope/package.json", import.meta.dir)),
      "dist",
      "release",
    );
  } catch {
    dir = null;
  }
  if (!dir || !existsSync(join(dir, "index.html"))) {
    throw new FlameoxError(
      "CAPABILITY_UNAVAILABLE",
      "The speedscope viewer is not installed beside this flameox (a compiled binary does " +
        "not carry it); export with `flameox export --format speedscope` and open the file in " +
        "any speedscope",
      {
        details: { capability: "viewer" },
      },
    );
  }
  return dir;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain",
  ".md": "text/plain",
};

export function serveProfile(
  profileJson: Uint8Array,
  options: { port?: number; timeoutSeconds: number },
): ViewerHandle {
  const release = speedscopeRelease();
  const files = new Set(readdirSync(release));
  const token = randomBytes(12).toString("hex");
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      const prefix = `/${token}/`;
      if (!path.startsWith(prefix)) return new Response("not found", { status: 404 });
      const name = path.slice(prefix.length) || "index.html";
      if (name === "profile.speedscope.json")
        return new Response(profileJson, { headers: { "content-type": "application/json" } });
      // Only the release folder's own file names: no separators, so no way out of it.
      if (!files.has(name)) return new Response("not found", { status: 404 });
      const type = TYPES[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream";
      return new Response(Bun.file(join(release, name)), { headers: { "content-type": type } });
    },
  });
  let stop!: (why: "timeout" | "signal") => void;
  const stopped = new Promise<"timeout" | "signal">((resolve) => {
    const timer = setTimeout(() => stop("timeout"), options.timeoutSeconds * 1000);
    const onSignal = () => stop("signal");
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    stop = (why) => {
      clearTimeout(timer);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      server.stop(true);
      resolve(why);
    };
  });
  const base = `http://127.0.0.1:${server.port}/${token}/`;
  return {
    url: `${base}#profileURL=${encodeURIComponent(`${base}profile.speedscope.json`)}`,
    stopped,
    stop: () => stop("signal"),
  };
}
