/**
 * Crash injection for the publication protocol. Tests set FLAMEOX_FAULT_INJECT to a step
 * name and the process is killed with SIGKILL at that step, exactly as a power cut or
 * OOM kill would stop it, so recovery is tested against real process death.
 */
export const PUBLICATION_STEPS = [
  "staged_parquet",
  "staged_manifest",
  "moved_evidence",
  "moved_manifest",
  "written_commit",
  "pre_head",
  "post_head",
] as const;
export type PublicationStep = (typeof PUBLICATION_STEPS)[number];

export function faultPoint(step: PublicationStep): void {
  if (process.env.FLAMEOX_FAULT_INJECT === step) process.kill(process.pid, "SIGKILL");
}
