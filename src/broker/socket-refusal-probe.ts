/**
 * Proves, from the host, that a sandbox refuses Unix sockets: flameox listens on a socket
 * in the probe's project (a path the sandbox can see), and util-linux `logger`, a host
 * tool at a fixed path, is told to connect to it — once outside the sandbox, which must
 * reach the listener (so the attempt is real), then inside, which must not. Only the
 * listener's count is believed, never what the sandboxed process reports. Where there is
 * no `logger` that can do this, the effect is not exercised and the caller says so.
 */
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { bubblewrapArgv, type SandboxLayout } from "./containment.ts";
import { runProcess } from "./process-broker.ts";

const LOGGER_CANDIDATES = ["/usr/bin/logger", "/bin/logger"];
const ATTEMPT_TIMEOUT_MS = 5000;

export interface SocketRefusal {
  /** A control attempt from the host reached the listener, so the sandboxed attempt was meaningful. */
  exercised: boolean;
  /** The sandboxed attempt did not reach the listener (meaningful only when exercised). */
  refused: boolean;
  reason: string;
}

export async function probeSocketRefusal(bwrapPath: string, layout: SandboxLayout): Promise<SocketRefusal> {
  const logger = LOGGER_CANDIDATES.find((path) => existsSync(path));
  if (!logger) return { exercised: false, refused: false, reason: "no logger(1) at /usr/bin or /bin to attempt a Unix socket connection" };
  const path = join(layout.projectRoot, "probe.sock");
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.on("error", () => undefined);
    // Destroyed, not ended: close() waits for every connection to be gone.
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, resolve);
  });
  try {
    const attempt = async (argv: string[]) => {
      const before = connections;
      await runProcess({ argv, cwd: layout.projectRoot, env: { PATH: "/usr/bin:/bin", LC_ALL: "C" }, deadlineAt: Date.now() + ATTEMPT_TIMEOUT_MS, maxOutputBytes: 4096, graceMs: 200 });
      // The connection is accepted asynchronously; give the event loop a moment.
      await Bun.sleep(20);
      return connections > before;
    };
    const command = [logger, "--tcp", "--socket", path, "flameox sandbox probe"];
    if (!(await attempt(command))) return { exercised: false, refused: false, reason: `${logger} could not connect to a Unix socket even outside the sandbox` };
    const reached = await attempt(bubblewrapArgv(bwrapPath, layout, command));
    return { exercised: true, refused: !reached, reason: reached ? "a process inside the sandbox connected to a Unix socket of the host" : "a process inside the sandbox could not connect to a Unix socket of the host that a process outside reached" };
  } finally {
    await Promise.race([new Promise<void>((resolve) => server.close(() => resolve())), Bun.sleep(1000)]);
  }
}
