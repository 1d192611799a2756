#!/usr/bin/env node
/**
 * npm entry of flameox. flameox runs on Bun; this launcher only finds a Bun and hands the
 * command to it, so `npx flameox` works where only Node is installed. It looks for Bun on
 * PATH, then for the `bun` npm package (an optional dependency, installed beside flameox
 * by npm). It downloads nothing: without a Bun it prints one line saying how to get one.
 * Under Bun itself (`bunx flameox`), it runs the CLI in-process instead of starting a
 * second runtime.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const args = process.argv.slice(2);

if (process.versions.bun) {
  const { runCli } = await import(entry);
  process.exit(await runCli(args));
}

// The `bun` npm package puts a small placeholder at bin/bun.exe until its postinstall
// replaces it; a real Bun is tens of megabytes, so anything under 1 MB is not one.
function isBun(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).size > 1_000_000 || !path.endsWith(".exe");
  } catch {
    return false;
  }
}

function findBun() {
  if (process.env.FLAMEOX_BUN && isBun(process.env.FLAMEOX_BUN)) return process.env.FLAMEOX_BUN;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && isBun(join(dir, "bun"))) return join(dir, "bun");
  }
  const require = createRequire(import.meta.url);
  const arch = process.arch === "arm64" ? "aarch64" : process.arch;
  const candidates = [
    ["bun/package.json", "bin/bun.exe"],
    // Installed with --ignore-scripts the postinstall never ran; the platform package holds the binary.
    [`@oven/bun-${process.platform}-${arch}/package.json`, "bin/bun"],
    [`@oven/bun-${process.platform}-${arch}-musl/package.json`, "bin/bun"],
  ];
  for (const [manifest, bin] of candidates) {
    try {
      const path = join(dirname(require.resolve(manifest)), bin);
      if (isBun(path)) return path;
    } catch {
      // not installed
    }
  }
  return null;
}

const bun = findBun();
if (!bun) {
  process.stderr.write(
    "flameox needs Bun (>= 1.4), which was not found: install it from npm with `npm install -g bun`, then run flameox again.\n",
  );
  process.exit(3);
}
const child = spawn(bun, [entry, ...args], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("error", (error) => {
  process.stderr.write(`flameox: could not start ${bun}: ${error.message}\n`);
  process.exit(3);
});
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
