/**
 * The agent clients `flameox setup` knows, each with its own documented configuration
 * file and shape. They differ in more than the file name: Claude Code, Cursor and Gemini
 * CLI read `mcpServers` in JSON, VS Code reads `servers` with an explicit `type`, OpenCode
 * reads `mcp` with the whole command line as one array, and Codex reads TOML tables
 * `[mcp_servers.NAME]`. No I/O here: paths are computed from the given home and project.
 */
import { join } from "node:path";

export const SERVER_NAME = "flameox";

export type ClientId = "claude-code" | "cursor" | "codex" | "vscode" | "gemini" | "opencode";
export type SetupScope = "project" | "user";

/** How the server is started: an absolute executable and its arguments. */
export interface ServerLaunch {
  command: string;
  args: string[];
}

export interface ClientDefinition {
  id: ClientId;
  name: string;
  format: "json" | "toml";
  /** The configuration file for a scope. */
  path(scope: SetupScope, home: string, project: string): string;
  /** Paths whose presence says the client is used here (its own config directory or file). */
  markers(home: string, project: string): string[];
  /** The value stored under the server name, in this client's shape. */
  entry(launch: ServerLaunch): Record<string, unknown>;
  /** Where server entries live in the document (JSON: a key path; TOML: the table prefix). */
  container: string[];
  /** Keys a new file starts with (before the container), e.g. OpenCode's `$schema`. */
  preamble?: Record<string, unknown>;
  /** Reads the launch back from an entry as this client would, for verification. */
  launchOf(entry: unknown): ServerLaunch | null;
}

const stringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === "string");

/** `{ command, args }` entries (Claude Code, Cursor, VS Code, Gemini CLI, Codex). */
function commandArgsLaunch(entry: unknown): ServerLaunch | null {
  const e = entry as { command?: unknown; args?: unknown } | null;
  if (!e || typeof e.command !== "string") return null;
  const args = e.args ?? [];
  return stringArray(args) ? { command: e.command, args } : null;
}

export const CLIENTS: readonly ClientDefinition[] = [
  {
    // `.mcp.json` is what `claude mcp add --scope project` writes; user scope lives in
    // ~/.claude.json.
    id: "claude-code",
    name: "Claude Code",
    format: "json",
    path: (scope, home, project) =>
      scope === "project" ? join(project, ".mcp.json") : join(home, ".claude.json"),
    markers: (home, project) => [
      join(home, ".claude.json"),
      join(home, ".claude"),
      join(project, ".mcp.json"),
      join(project, ".claude"),
    ],
    container: ["mcpServers"],
    entry: (l) => ({ type: "stdio", command: l.command, args: l.args, env: {} }),
    launchOf: commandArgsLaunch,
  },
  {
    id: "cursor",
    name: "Cursor",
    format: "json",
    path: (scope, home, project) =>
      join(scope === "project" ? project : home, ".cursor", "mcp.json"),
    markers: (home, project) => [join(home, ".cursor"), join(project, ".cursor")],
    container: ["mcpServers"],
    entry: (l) => ({ command: l.command, args: l.args }),
    launchOf: commandArgsLaunch,
  },
  {
    // Codex reads ~/.codex/config.toml, and .codex/config.toml in a trusted project.
    id: "codex",
    name: "Codex",
    format: "toml",
    path: (scope, home, project) =>
      join(scope === "project" ? project : home, ".codex", "config.toml"),
    markers: (home, project) => [join(home, ".codex"), join(project, ".codex")],
    container: ["mcp_servers"],
    entry: (l) => ({ command: l.command, args: l.args }),
    launchOf: commandArgsLaunch,
  },
  {
    id: "vscode",
    name: "VS Code",
    format: "json",
    path: (scope, home, project) =>
      scope === "project"
        ? join(project, ".vscode", "mcp.json")
        : join(home, ".config", "Code", "User", "mcp.json"),
    markers: (home, project) => [join(home, ".config", "Code"), join(project, ".vscode")],
    container: ["servers"],
    entry: (l) => ({ type: "stdio", command: l.command, args: l.args }),
    launchOf: commandArgsLaunch,
  },
  {
    id: "gemini",
    name: "Gemini CLI",
    format: "json",
    path: (scope, home, project) =>
      join(scope === "project" ? project : home, ".gemini", "settings.json"),
    markers: (home, project) => [join(home, ".gemini"), join(project, ".gemini")],
    container: ["mcpServers"],
    entry: (l) => ({ command: l.command, args: l.args }),
    launchOf: commandArgsLaunch,
  },
  {
    id: "opencode",
    name: "OpenCode",
    format: "json",
    path: (scope, home, project) =>
      scope === "project"
        ? join(project, "opencode.json")
        : join(home, ".config", "opencode", "opencode.json"),
    markers: (home, project) => [
      join(home, ".config", "opencode"),
      join(project, "opencode.json"),
      join(project, "opencode.jsonc"),
      join(project, ".opencode"),
    ],
    container: ["mcp"],
    preamble: { $schema: "https://opencode.ai/config.json" },
    entry: (l) => ({ type: "local", command: [l.command, ...l.args], enabled: true }),
    launchOf: (entry) => {
      const command = (entry as { command?: unknown } | null)?.command;
      return stringArray(command) && command.length > 0
        ? { command: command[0]!, args: command.slice(1) }
        : null;
    },
  },
];

export const CLIENT_IDS = CLIENTS.map((c) => c.id);

export function clientById(id: string): ClientDefinition | undefined {
  return CLIENTS.find((c) => c.id === id);
}

/**
 * The project root written into the server's arguments. A project-scoped file names its
 * project exactly. A user-scoped file serves every project: VS Code substitutes
 * `${workspaceFolder}`; the others start the server in the open project's directory, so
 * `.` is that project.
 */
export function projectRootArgument(
  client: ClientDefinition,
  scope: SetupScope,
  project: string,
): string {
  if (scope === "project") return project;
  return client.id === "vscode" ? "${workspaceFolder}" : ".";
}
