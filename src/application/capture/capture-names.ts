/** Names of the capture adapters, for transports that must list them without importing adapters. */
export { CAPTURE_ADAPTER_NAMES } from "../../adapters/capture/registry.ts";
