/**
 * The typed refusal for a capability that is not available: absent or incompatible, or blocked by
 * permission.
 */
import type { CapabilityReport } from "../../domain/capture.ts";
import { FlameoxError } from "../../domain/errors.ts";

export function capabilityRefusal(report: CapabilityReport): FlameoxError {
  const details = { capability: report.name, status: report.status };
  if (report.status === "permission_required") {
    return new FlameoxError(
      "PERMISSION_REQUIRED",
      `Cannot capture with ${report.name}: ${report.reason}`,
      {
        details,
        remediation: report.limitations
          .map((l) => l.message)
          .concat("Check with `flameox capabilities` or list_capabilities"),
      },
    );
  }
  return new FlameoxError(
    "CAPABILITY_UNAVAILABLE",
    `Cannot capture with ${report.name}: it is ${report.status} (${report.reason})`,
    {
      details,
      remediation: [
        "Check with `flameox capabilities` or list_capabilities, install the tool, then plan again",
      ],
    },
  );
}
