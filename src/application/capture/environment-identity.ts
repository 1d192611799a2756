/**
 * Environment identity: what the machine is, never who or where. OS, release, kernel,
 * architecture, CPU model and count, memory, and the runtime and tool versions a
 * capture used. Hostname, user name and home paths are never read.
 */
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, release, totalmem } from "node:os";
import { digestOf } from "../../domain/canonical-digest.ts";
import type { EnvironmentIdentity } from "../../domain/identity.ts";
import { FLAMEOX_VERSION } from "../../domain/version.ts";

export function environmentIdentity(tools: Record<string, string | null>): EnvironmentIdentity {
  const missing: string[] = [];
  const osRelease = readOsRelease();
  if (!osRelease) missing.push("os_release");
  const cpuModel = cpus()[0]?.model?.trim() || null;
  if (!cpuModel) missing.push("cpu_model");
  const runtimes: Record<string, string> = {
    flameox: FLAMEOX_VERSION,
    bun: process.versions.bun ?? "unknown",
  };
  for (const [name, version] of Object.entries(tools)) {
    if (version) runtimes[name] = version;
    else missing.push(`runtimes.${name}`);
  }
  const fields = {
    os: process.platform,
    os_release: osRelease,
    kernel: release() || null,
    arch: process.arch,
    cpu_model: cpuModel,
    cpu_count: availableParallelism(),
    memory_bytes: totalmem(),
    runtimes,
  };
  return {
    environment_id: digestOf(fields),
    identity_quality: missing.length > 0 ? "partial" : "exact",
    fields,
    missing_fields: missing,
  };
}

function readOsRelease(): string | null {
  try {
    const text = readFileSync("/etc/os-release", "utf8");
    const value = (key: string) =>
      new RegExp(`^${key}="?([^"\\n]*)"?$`, "m").exec(text)?.[1] ?? null;
    return (
      value("PRETTY_NAME") ?? ([value("ID"), value("VERSION_ID")].filter(Boolean).join(" ") || null)
    );
  } catch {
    return null;
  }
}
