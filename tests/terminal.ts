/**
 * A real terminal for CLI tests: a detached tmux session on its own tmux server.
 *
 * Each terminal has a private socket (`tmux -L`). Sessions on the shared default server
 * raced across test files run at once: when one file killed its last session the server
 * exited, and another file's `new-session`, connecting to that exiting server, failed
 * without a screen; the test then waited out its whole timeout on an empty pane.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const TMUX = Bun.which("tmux");

let opened = 0;

export interface Terminal {
  /** The visible screen; with `escapes`, SGR sequences are kept. */
  screen(escapes?: boolean): string;
  /** Polls the screen until `text` appears or `ms` pass; returns the last screen. */
  waitFor(text: string, ms: number, escapes?: boolean): Promise<string>;
  keys(...keys: string[]): void;
  close(): void;
}

function sh(...argv: string[]) {
  return Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
}

/** Runs `command` in a new `width` x `height` terminal; throws when tmux cannot start it. */
export function openTerminal(command: string, width: number, height: number): Terminal {
  if (!TMUX) throw new Error("tmux is not installed");
  const socket = join(tmpdir(), `flameox-tmux-${process.pid}-${opened++}`);
  const tmux = (...args: string[]) => sh(TMUX, "-S", socket, ...args);
  const started = tmux(
    "new-session",
    "-d",
    "-s",
    "t",
    "-x",
    String(width),
    "-y",
    String(height),
    command,
  );
  if (started.exitCode !== 0) {
    throw new Error(`tmux new-session failed: ${started.stderr.toString().trim()}`);
  }
  const screen = (escapes = false) =>
    tmux("capture-pane", ...(escapes ? ["-e"] : []), "-p", "-t", "t").stdout.toString();
  return {
    screen,
    async waitFor(text, ms, escapes = false) {
      const deadline = Date.now() + ms;
      let shown = screen(escapes);
      while (!shown.includes(text) && Date.now() < deadline) {
        await Bun.sleep(50);
        shown = screen(escapes);
      }
      return shown;
    },
    keys: (...keys) => void tmux("send-keys", "-t", "t", ...keys),
    close: () => {
      tmux("kill-server");
      // The server leaves its socket behind: one file per terminal, every run, in /tmp.
      rmSync(socket, { force: true });
    },
  };
}
