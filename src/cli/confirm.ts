/**
 * Asking a person at a terminal. Only a terminal on stdin counts: a pipe, a file or a
 * process driving flameox is not a person answering, so without one the caller must
 * refuse or take an explicit `--yes`.
 */
import { createInterface } from "node:readline";

export const hasTerminal = (): boolean => process.stdin.isTTY === true;

/**
 * Writes `question` to stderr and reads one line; only y or yes (any case) is consent, end of input
 * is not.
 */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.once("close", () => resolve(""));
      rl.question(question, resolve);
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
