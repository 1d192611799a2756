/**
 * tinypool, loaded when a process first starts threads: it brings node:child_process,
 * node:worker_threads, node:os and node:util with it, ~40 ms of a parse worker's start
 * that an import too small for threads never uses.
 */
import type TinypoolClass from "tinypool";

export function loadTinypool(): typeof TinypoolClass {
  return (require("tinypool") as { default: typeof TinypoolClass }).default;
}
