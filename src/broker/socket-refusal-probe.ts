/**
 * Proves, from the host, that a sandbox refuses Unix sockets: flameox listens on two
 * sockets in the probe's project (paths the sandbox can see), and util-linux `logger`, a
 * host tool at a fixed path, is told to connect — outside the sandbox to one, which must
 * be reached (so the attempt is real), and inside to the other, which must not. The two
 * attempts run at once. Only the listeners' counts are believed, never what the
 * sandboxed process reports. Where there is no `logger` that can do this, the effect is
 * not exercised and the caller says so.
 */
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { bubblewrapArgv, type SandboxLayout } from "./containment.ts";
import { runProcess } from "./process-broker.ts";

const LOGGER_CANDIDATES = ["/usr/bin/logger", "/bin/logger"];
const ATTEMPT_TIMEOUT_MS = 5000;

export interface SocketRefusal {
  /**
   * A control attempt from the host reached its listener, so the sandboxed attempt was meaningful.
   */
  exercised: boolean;
  /** The sandboxed attempt did not reach its listener (meaningful only when exercised). */
  refused: boolean;
  reason: string;
}

export async function probeSocketRefusal(
  bwrapPath: string,
  layout: SandboxLayout,
): Promise<SocketRefusal> {
  const logger = LOGGER_CANDIDATES.find((path) => existsSync(path));
  if (!logger)
    return {
      exercised: false,
      refused: false,
      reason: "no logger(1) at /usr/bin or /bin to attempt a Unix socket connection",
    };
  const control = await listen(join(layout.projectRoot, "control.sock"));
  const inside = await listen(join(layout.projectRoot, "sandbox.sock"));
  try {
    const attempt = (argv: string[]) =>
      runProcess({
        argv,
        cwd: layout.projectRoot,
        env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
        deadlineAt: Date.now() + ATTEMPT_TIMEOUT_MS,
        maxOutputBytes: 4096,
        graceMs: 200,
      });
    const command = (path: string) => [logger, "--tcp", "--socket", path, "flameox sandbox probe"];
    await Promise.all([
      attempt(command(control.path)),
      attempt(bubblewrapArgv(bwrapPath, layout, command(inside.path))),
    ]);
    // A connection is accepted asynchronously; give the event loop a moment.
    await Bun.sleep(20);
    if (control.connections() === 0)
      return {
        exercised: false,
        refused: false,
        reason: `${logger} could not connect to a Unix socket even outside the sandbox`,
      };
    const reached = inside.connections() > 0;
    return {
      exercised: true,
      refused: !reached,
      reason: reached
        ? "a process inside the sandbox connected to a Unix socket of the host"
        : "a process inside the sandbox could not connect to a Unix socket of the host that a " +
          "process outside reached",
    };
  } finally {
    await Promise.all([control.close(), inside.close()]);
  }
}

async function listen(
  path: string,
): Promise<{ path: string; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    socket.on("error", () => undefined);
    // Destroyed, not ended: close() waits for every connection to be gone.
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, resolve);
  });
  return {
    path,
    connections: () => count,
    close: () =>
      Promise.race([
        new Promise<void>((resolve) => server.close(() => resolve())),
        Bun.sleep(1000),
      ]),
  };
}
