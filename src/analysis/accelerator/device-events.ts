/**
 * What marks device work and its launches in trace events, for Nsight Systems exports and
 * torch.profiler (Kineto) traces alike: their categories, and the correlation id that ties
 * a kernel, copy or set to the runtime/driver call that launched it.
 */

/** Nsight's categories and Kineto's for work that runs on the device. */
export const DEVICE_CATEGORIES = new Set([
  "cuda_kernel",
  "cuda_memcpy",
  "cuda_memset",
  "kernel",
  "gpu_memcpy",
  "gpu_memset",
]);
export const KERNEL_CATEGORIES = new Set(["cuda_kernel", "kernel"]);
/** Host calls that launch device work (their correlation id names it). */
export const LAUNCH_CATEGORIES = new Set(["cuda_runtime", "cuda_driver"]);

/** Nsight writes `correlation_id`, Kineto `correlation`. */
export function correlationOf(args: string | null): string | null {
  if (!args?.includes("correlation")) return null;
  try {
    const parsed = JSON.parse(args) as Record<string, unknown>;
    const id = parsed.correlation_id ?? parsed.correlation;
    return id === undefined || id === null ? null : String(id);
  } catch {
    // Args cut at the stored limit are not JSON; such an event has no usable id.
    return null;
  }
}
