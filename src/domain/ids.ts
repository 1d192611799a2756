/** Identifier constructors. Run and operation ids are random (lineage, never authority). */
import { randomUUID } from "node:crypto";

export const newRunId = (): string => `run_${randomUUID()}`;
export const newOperationId = (): string => `op_${randomUUID()}`;
export const newApprovalId = (): string => `approval_${randomUUID()}`;
export const newRegistrationId = (): string => `reg_${randomUUID()}`;
export const newGenerationId = (): string => `gen_${randomUUID()}`;
export const newWorkspaceId = (): string => randomUUID();

export const ARTIFACT_ID_PATTERN = /^sha256:[0-9a-f]{64}$/;
export const artifactIdFromHex = (hex: string): string => `sha256:${hex}`;
export const hexFromArtifactId = (id: string): string => id.slice("sha256:".length);
