/**
 * Loads the services and the analysis modules that drill-downs use (hotspots, callers,
 * callees, stack examples, trace windows and the evidence readers under them), for a
 * long-lived process that has a moment to spare before its first question. Loads code
 * only: no workspace is opened and nothing is read.
 */
export async function warmAnalyses(): Promise<void> {
  await import("./workspace-service.ts");
  await import("../analysis/evidence-parts.ts");
  await import("../analysis/stacks.ts");
  await import("../analysis/hotspots.ts");
  await import("../analysis/trace-window.ts");
}
