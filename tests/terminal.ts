/**
 * A real terminal for CLI tests: a detached tmux session on its own tmux server.
 *
 * Each terminal has a private socket (`tmux -L`). Sessions on the shared default server
 * raced across test files run at once: when one file killed its last session the server
 * exited, and another file's `new-session`, connecting to that exiting server, failed
 * without a screen; the test then waited out its whole timeout on an empty pane.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const TMUX = Bun.which("tmux");

let opened = 0;

export interface Terminal {
  /** The visible screen; with `escapes`, SGR sequences are kept. */
  screen(escapes?: boolean): string;
  /**
   * With `record`: everything the command has written to the terminal so far, escapes included,
   * so what was drawn and overwritten between two looks at the screen too (tmux pipe-pane).
   */
  written(): string;
  /** Polls the screen until `text` appears or `ms` pass; returns the last screen. */
  waitFor(text: string, ms: number, escapes?: boolean): Promise<string>;
  keys(...keys: string[]): void;
  close(): void;
}

function sh(...argv: string[]) {
  return Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
}

/**
 * Runs `command` in a new `width` x `height` terminal; throws when tmux cannot start it. With
 * `record`, its output is kept from its first byte (`written`).
 */
export function openTerminal(
  command: string,
  width: number,
  height: number,
  options: { record?: boolean } = {},
): Terminal {
  if (!TMUX) throw new Error("tmux is not installed");
  const tmuxPath = TMUX;
  const socket = join(tmpdir(), `flameox-tmux-${process.pid}-${opened++}`);
  const log = `${socket}.out`;
  const tmux = (...args: string[]) => sh(tmuxPath, "-S", socket, ...args);
  // A recorded command waits in the pane until the pipe is attached, so nothing is missed.
  const run = options.record ? `'${tmuxPath}' -S '${socket}' wait-for piped; ${command}` : command;
  const started = tmux(
    "new-session",
    "-d",
    "-s",
    "t",
    "-x",
    String(width),
    "-y",
    String(height),
    run,
  );
  if (started.exitCode !== 0) {
    throw new Error(`tmux new-session failed: ${started.stderr.toString().trim()}`);
  }
  if (options.record) {
    const piped = tmux("pipe-pane", "-t", "t", "-o", `cat >> '${log}'`);
    tmux("wait-for", "-S", "piped");
    if (piped.exitCode !== 0) {
      tmux("kill-server");
      throw new Error(`tmux pipe-pane failed: ${piped.stderr.toString().trim()}`);
    }
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
    written: () => (existsSync(log) ? readFileSync(log, "utf8") : ""),
    keys: (...keys) => void tmux("send-keys", "-t", "t", ...keys),
    close: () => {
      tmux("kill-server");
      // The server leaves its socket behind: one file per terminal, every run, in /tmp.
      rmSync(socket, { force: true });
      rmSync(log, { force: true });
    },
  };
}
