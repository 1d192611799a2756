/**
 * Adds or replaces the flameox server entry in a client's configuration text, changing
 * nothing else a parser would see. JSON is rewritten with the file's own indentation; a
 * file a strict JSON parser refuses (comments, trailing commas) is left alone and the
 * caller is told to add the entry by hand. TOML is edited as text: the flameox table is
 * replaced in place or appended, so comments and every other table keep their bytes.
 * Pure: text in, text out.
 */
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { FlameoxError } from "../../domain/errors.ts";
import { type ClientDefinition, SERVER_NAME } from "./clients.ts";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function invalid(client: ClientDefinition, path: string, why: string, entry: Json): FlameoxError {
  return new FlameoxError(
    "CONFIGURATION_INVALID",
    `${client.name} configuration ${path} ${why}; flameox did not change it`,
    {
      remediation: [
        `Add this entry by hand ` +
          `under ${client.container.join(".")}.${SERVER_NAME}: ${JSON.stringify(entry)}`,
      ],
      details: { client: client.id, path },
    },
  );
}

function parseJson(client: ClientDefinition, path: string, text: string, entry: Json): Json {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw invalid(client, path, "is not plain JSON (comments or trailing commas?)", entry);
  }
  if (!isObject(doc)) throw invalid(client, path, "is not a JSON object", entry);
  return doc;
}

function parseTomlText(client: ClientDefinition, path: string, text: string, entry: Json): Json {
  try {
    return parseToml(text) as Json;
  } catch (error) {
    throw invalid(
      client,
      path,
      `is not valid TOML (${(error as Error).message.split("\n")[0]})`,
      entry,
    );
  }
}

const indentOf = (text: string): string => /^([ \t]+)"/m.exec(text)?.[1] ?? "  ";

/**
 * The configuration text with the server entry set; `oldText` null means the file does not exist.
 */
export function withServerEntry(
  client: ClientDefinition,
  path: string,
  oldText: string | null,
  entry: Json,
): string {
  const empty = oldText === null || oldText.trim() === "";
  if (client.format === "toml") return withTomlEntry(client, path, empty ? "" : oldText!, entry);
  const doc = empty ? { ...client.preamble } : parseJson(client, path, oldText!, entry);
  let node: Json = doc;
  for (const key of client.container) {
    const next = node[key] ?? {};
    if (!isObject(next)) throw invalid(client, path, `has a ${key} that is not an object`, entry);
    node[key] = next;
    node = next;
  }
  node[SERVER_NAME] = entry;
  return JSON.stringify(doc, null, empty ? "  " : indentOf(oldText!)) + "\n";
}

function withTomlEntry(
  client: ClientDefinition,
  path: string,
  oldText: string,
  entry: Json,
): string {
  parseTomlText(client, path, oldText, entry);
  const prefix = [...client.container, SERVER_NAME].join(".");
  let nested: Json = entry;
  for (const key of [SERVER_NAME, ...client.container.slice().reverse()])
    nested = { [key]: nested };
  const block = stringifyToml(nested).trimEnd() + "\n";
  const lines = oldText.split("\n");
  const header = (line: string) =>
    /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/
      .exec(line)?.[1]
      ?.replace(/\s+/g, "")
      .replace(/"/g, "");
  const start = lines.findIndex((l) => header(l) === prefix);
  let text: string;
  if (start < 0) {
    text = oldText === "" ? block : `${oldText}${oldText.endsWith("\n") ? "" : "\n"}\n${block}`;
  } else {
    // The table runs to the next header that is not one of its own sub-tables.
    let end = start + 1;
    while (end < lines.length) {
      const h = header(lines[end]!);
      if (h !== undefined && h !== prefix && !h.startsWith(`${prefix}.`)) break;
      end++;
    }
    // Blank lines that separate it from the next table stay.
    while (end > start + 1 && lines[end - 1]!.trim() === "") end--;
    text = [...lines.slice(0, start), ...block.trimEnd().split("\n"), ...lines.slice(end)].join(
      "\n",
    );
  }
  const check = readServerEntry(client, path, text);
  if (JSON.stringify(check) !== JSON.stringify(entry))
    throw invalid(
      client,
      path,
      "defines the flameox server in a form flameox cannot replace",
      entry,
    );
  return text;
}

/** The server entry a client would read from this text, or undefined when there is none. */
export function readServerEntry(client: ClientDefinition, path: string, text: string): unknown {
  let node: unknown =
    client.format === "toml"
      ? parseTomlText(client, path, text, {})
      : parseJson(client, path, text, {});
  for (const key of [...client.container, SERVER_NAME])
    node = isObject(node) ? node[key] : undefined;
  return node;
}
