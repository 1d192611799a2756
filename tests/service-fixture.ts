/** A temporary workspace opened as a WorkspaceService for the tests of one file. */
import { afterAll, beforeAll } from "bun:test";
import { WorkspaceService } from "../src/application/workspace-service.ts";
import { tempWorkspace } from "./helpers.ts";

/**
 * Opens a fresh workspace before the file's tests and hands it to `onOpen`; closes the
 * service and removes the workspace after them.
 */
export function useWorkspaceService(
  onOpen: (service: WorkspaceService, root: string) => void,
): void {
  let opened: { service: WorkspaceService; cleanup: () => void } | null = null;
  beforeAll(async () => {
    const ws = await tempWorkspace();
    const service = await WorkspaceService.open({ workspace: ws.root });
    opened = { service, cleanup: ws.cleanup };
    onOpen(service, ws.root);
  }, 60_000);
  afterAll(() => {
    opened?.service.close();
    opened?.cleanup();
  });
}
