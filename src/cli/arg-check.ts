/**
 * Rejects what citty would silently accept: an unknown flag (`--limt 3` used to print 50
 * rows) or an unknown command, each with the nearest known name. Runs over the same
 * command tree citty runs, before any command does work.
 */
import type { ArgsDef, CommandDef } from "citty";
import { FlameoxError } from "../domain/errors.ts";

type AnyCommand = CommandDef<ArgsDef>;
type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);
const resolve = async <T>(value: Resolvable<T> | undefined): Promise<T | undefined> =>
  typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;

/** Edit distance, for "did you mean": small names, so the plain dynamic programme is enough. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}

export function nearest(input: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = candidate.startsWith(input) && input.length >= 2 ? 0.5 : distance(input, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(input.length / 3)) ? best : null;
}

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function unknown(
  what: string,
  name: string,
  suggestion: string | null,
  path: string[],
): FlameoxError {
  const help = `flameox ${path.join(" ")}${path.length ? " " : ""}--help`;
  return new FlameoxError(
    "INVALID_ARGUMENTS",
    `Unknown ${what} ${name}${suggestion ? ` (did you mean ${suggestion}?)` : ""}`,
    {
      remediation: [`Run \`${help}\``],
      details: { field: name, ...(suggestion ? { suggestion } : {}) },
    },
  );
}

export async function checkArguments(root: AnyCommand, rawArgs: string[]): Promise<void> {
  let cmd = root;
  const path: string[] = [];
  let help = false;
  let args = ((await resolve(cmd.args as Resolvable<ArgsDef>)) ?? {}) as ArgsDef;
  let subs =
    (await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<AnyCommand>>>)) ?? {};
  for (let i = 0; i < rawArgs.length; i++) {
    const token = rawArgs[i]!;
    if (token === "--") return;
    if (token.startsWith("-") && token.length > 1 && !/^-\d/.test(token)) {
      const [flag] = token.replace(/^--?/, "").split("=", 1) as [string];
      const known = new Map<string, ArgsDef[string]>();
      for (const [name, def] of Object.entries(args)) {
        if (def.type === "positional") continue;
        known.set(kebab(name), def).set(name, def);
        for (const alias of [(def as { alias?: string | string[] }).alias ?? []].flat())
          known.set(alias, def);
      }
      const negated = flag.startsWith("no-") ? known.get(flag.slice(3)) : undefined;
      const def = known.get(flag) ?? (negated?.type === "boolean" ? negated : undefined);
      if (flag === "help" || flag === "h") help = true;
      else if (!def) {
        const names = [
          ...new Set(
            Object.entries(args)
              .filter(([, d]) => d.type !== "positional")
              .map(([n]) => kebab(n)),
          ),
        ];
        const near = nearest(flag, names);
        throw unknown(
          "option",
          `${token.startsWith("--") ? "--" : "-"}${flag}`,
          near ? `--${near}` : null,
          path,
        );
      }
      // A string option takes the next token as its value unless written --name=value.
      if (def && def.type !== "boolean" && !token.includes("=")) i++;
      continue;
    }
    if (Object.keys(subs).length > 0) {
      const entry = subs[token];
      if (!entry) throw unknown("command", token, nearest(token, Object.keys(subs)), path);
      cmd = (await resolve(entry))!;
      path.push(token);
      args = ((await resolve(cmd.args as Resolvable<ArgsDef>)) ?? {}) as ArgsDef;
      subs =
        (await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<AnyCommand>>>)) ??
        {};
    }
  }
  if (!help && Object.keys(subs).length > 0 && !cmd.run) {
    const name = ["flameox", ...path].join(" ");
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `${name} needs a command: ${Object.keys(subs).join(", ")}`,
      { remediation: [`Run \`${name} --help\``] },
    );
  }
}
